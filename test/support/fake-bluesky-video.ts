import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Bluesky's video service (video.bsky.app) as its documentation describes it (docs.bsky.app "Uploading video",
 * lexicons app.bsky.video.uploadVideo and getJobStatus): the client sends the file with a service-auth token
 * its PDS issued for com.atproto.repo.uploadBlob; the service processes it as a job and, like the real one,
 * stores the result in the account's repository by calling the PDS's uploadBlob with that same token; the
 * job's status then carries the blob.
 */
export interface FakeVideoService {
  url: string;
  jobs: Map<string, { did: string; state: string; blob?: unknown; error?: string }>;
  /** The next upload's job fails with this error, as a video the service cannot encode. */
  failNext?: string;
  close(): Promise<void>;
}

export async function startFakeVideoService(pdsUrl: string): Promise<FakeVideoService> {
  const jobs: FakeVideoService['jobs'] = new Map();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://video.invalid');
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'POST' && url.pathname === '/xrpc/app.bsky.video.uploadVideo') {
        const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
        let claims: any;
        try {
          claims = JSON.parse(Buffer.from(String(token).split('.')[1], 'base64url').toString('utf8'));
        } catch {
          return send(401, { error: 'AuthMissing', message: 'Authentication Required' });
        }
        const did = url.searchParams.get('did');
        if (
          claims.iss !== did ||
          claims.lxm !== 'com.atproto.repo.uploadBlob' ||
          !String(claims.aud).startsWith('did:web:')
        ) {
          return send(401, { error: 'BadJwt', message: 'jwt does not match the upload' });
        }
        const jobId = crypto.randomBytes(8).toString('hex');
        const job: { did: string; state: string; blob?: unknown; error?: string } = {
          did: String(did),
          state: 'JOB_STATE_CREATED',
        };
        jobs.set(jobId, job);
        if (fake.failNext) {
          job.state = 'JOB_STATE_FAILED';
          job.error = fake.failNext;
          fake.failNext = undefined;
        } else {
          const stored = await fetch(`${pdsUrl}/xrpc/com.atproto.repo.uploadBlob`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'video/mp4' },
            body: Buffer.concat(chunks),
          });
          const answer = await stored.json();
          if (!stored.ok) return send(stored.status, answer);
          job.blob = answer.blob;
          job.state = 'JOB_STATE_ENCODING';
        }
        return send(200, { jobStatus: { jobId, did, state: job.state } });
      }
      if (req.method === 'GET' && url.pathname === '/xrpc/app.bsky.video.getJobStatus') {
        const jobId = url.searchParams.get('jobId') ?? '';
        const job = jobs.get(jobId);
        if (!job) return send(400, { error: 'InvalidRequest', message: 'job not found' });
        const answer = {
          jobId,
          did: job.did,
          state: job.state,
          ...(job.state === 'JOB_STATE_COMPLETED' ? { blob: job.blob, progress: 100 } : {}),
          ...(job.error ? { error: job.error } : {}),
        };
        // Encoding takes one look: the next status read finds it complete.
        if (job.state === 'JOB_STATE_ENCODING') job.state = 'JOB_STATE_COMPLETED';
        return send(200, { jobStatus: answer });
      }
      send(404, { error: 'MethodNotImplemented', message: 'Method Not Implemented' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeVideoService = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    jobs,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return fake;
}
