/**
 * The deployment files: the Dockerfile, compose.yaml and the systemd pair in docs/deploy.md say what a deployment
 * needs (read here, always); compose.yaml is resolved by Compose and the units verified by `systemd-analyze verify`
 * where those tools are (CI installs them, so there they must be); and with HERALD_CONTAINER_TEST=1 the image is
 * built, started, and answers /healthz as a user other than root, with its worker as the same image.
 *
 * CI runs the image's build beside the suites at low priority (.ci/run), since it takes minutes: a base image made
 * from Debian's archive (HERALD_NODE_IMAGE names one instead), dependencies unpacked, dist/ built, and better-sqlite3
 * taken prebuilt from this machine, where the same locked source was compiled for the same Node, served as the
 * mirror prebuild-install reads (no GitHub here), so the image compiles nothing.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freshDatabase, TEST_DB } from '../support/herald.js';

const run = promisify(execFile);

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions by stage (the first, what comes before any FROM), comments left out. */
function dockerfileStages(text: string): Instruction[][] {
  const stages: Instruction[][] = [[]];
  const joined = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  for (const line of joined) {
    const [, keyword, args] = /^(\S+)\s*(.*)$/.exec(line)!;
    const instruction = { keyword: keyword.toUpperCase(), args };
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)!.push(instruction);
  }
  return stages;
}

/** Each service of compose.yaml with its block's lines (two-space indented YAML, as the file is written). */
function composeServices(text: string): Map<string, string> {
  const services = new Map<string, string>();
  const block = /^services:\n((?:(?: {2}.*)?\n)+)/m.exec(text)?.[1] ?? '';
  for (const [, name, body] of block.matchAll(/^ {2}([a-z][\w-]*):\n((?:(?: {4}.*)?\n)*)/gm)) services.set(name, body);
  return services;
}

/** A loopback port free now, for a container on the host's network (which reaches the test's Postgres too). */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A tool's answer, or undefined where it is not installed; CI installs every tool used here, so there it must be. */
async function tool(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  try {
    const { stdout, stderr } = await run(command, args, { env });
    return { stdout, stderr };
  } catch (e) {
    const error = e as NodeJS.ErrnoException & { stdout?: string; stderr?: string };
    if (error.code !== 'ENOENT') throw new Error(`${command} ${args.join(' ')}: ${error.stderr || error.message}`);
    if (process.env.CI) throw new Error(`${command} is not installed, and CI installs it (.ci/run)`);
    return undefined;
  }
}

/**
 * A check that needs a tool is registered where one of `commands` is on PATH, and always in CI, which installs them
 * (.ci/run); elsewhere it says why it is not registered, as one-database tests do.
 */
function whereInstalled(commands: string[]): (title: string, test: Mocha.AsyncFunc) => void {
  const onPath = (command: string) =>
    (process.env.PATH ?? '').split(path.delimiter).some((dir) => fs.existsSync(path.join(dir, command)));
  if (process.env.CI || commands.some(onPath)) return (title, test) => it(title, test);
  return (title) => console.log(`    not run here, ${commands.join(' or ')} not installed (CI installs it): ${title}`);
}

/**
 * better-sqlite3's binary as this machine built it, served as a prebuild-install mirror
 * (`/v<version>/better-sqlite3-v<version>-node-v<abi>-linux-x64.tar.gz`) for an image running this same Node.
 */
async function servePrebuiltSqlite(): Promise<{ url: string; close: () => Promise<void> }> {
  const require = createRequire(import.meta.url);
  const packageDir = path.dirname(require.resolve('better-sqlite3/package.json'));
  const { version } = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-prebuild-'));
  await run('tar', ['-C', packageDir, '-czf', path.join(dir, name), 'build/Release/better_sqlite3.node']);
  const tarball = fs.readFileSync(path.join(dir, name));
  fs.rmSync(dir, { recursive: true });
  const server = http.createServer((request, response) => {
    if (request.url !== `/v${version}/${name}`) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/gzip' }).end(tarball);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('deploying Herald', () => {
  it('the Dockerfile builds in stages, runs as a user of its own, keeps DATA_DIR in a volume and checks /healthz', () => {
    const stages = dockerfileStages(fs.readFileSync('Dockerfile', 'utf8'));
    assert.ok(stages.length >= 3, 'the ARG of the base image, a build stage and the stage that runs');
    const last = stages.at(-1)!;
    const find = (keyword: string) => last.filter((i) => i.keyword === keyword).map((i) => i.args);
    assert.ok(
      stages.some((stage) => stage.some((i) => /^RUN .*npm ci/.test(`${i.keyword} ${i.args}`))),
      'dependencies installed in a stage',
    );
    assert.ok(
      find('COPY').some((args) => args.startsWith('--from=build')),
      "the last stage takes the build's output",
    );
    assert.ok(!find('RUN').some((args) => /npm ci|tsc|build-web/.test(args)), 'nothing is built in the last stage');
    const user = find('USER').at(-1);
    assert.ok(user && !/^(root|0)(:|$)/.test(user), `runs as ${user}, not root`);
    assert.ok(find('ENV').some((args) => /\bDATA_DIR=\/data\b/.test(args)));
    assert.ok(find('VOLUME').some((args) => /\/data\b/.test(args)));
    assert.match(find('HEALTHCHECK').join(' '), /\/healthz/);
    assert.match(find('ENTRYPOINT').join(' '), /dist\/src\/cli\/main\.js/);
    assert.deepEqual(JSON.parse(find('CMD').at(-1)!), ['serve']);
  });

  it('compose.yaml runs Postgres, the API and the worker, one image with two commands, sharing the data volume', () => {
    const services = composeServices(fs.readFileSync('compose.yaml', 'utf8'));
    assert.deepEqual([...services.keys()], ['postgres', 'api', 'worker']);
    const api = services.get('api')!;
    const worker = services.get('worker')!;
    assert.match(services.get('postgres')!, /image: postgres:/);
    assert.match(services.get('postgres')!, /healthcheck:/);
    assert.match(api, /^ {4}build: \.$/m);
    assert.equal(/^ {4}image: (\S+)$/m.exec(api)?.[1], /^ {4}image: (\S+)$/m.exec(worker)?.[1], 'one image');
    assert.match(api, /command: \["serve", "--no-worker"\]/);
    assert.match(worker, /command: \["worker"\]/);
    for (const service of [api, worker]) {
      assert.match(service, /environment: \*herald-environment/);
      assert.match(service, /- data:\/data/);
    }
    assert.match(fs.readFileSync('compose.yaml', 'utf8'), /DATABASE_URL: postgres:\/\/herald:.*@postgres:5432\/herald/);
    assert.match(api, /postgres:\n {8}condition: service_healthy/);
    assert.match(worker, /api:\n {8}condition: service_healthy/);
  });

  it('docs/deploy.md has the systemd pair: the API without its worker, and the worker', () => {
    const doc = fs.readFileSync('docs/deploy.md', 'utf8');
    const units = [...doc.matchAll(/`\/etc\/systemd\/system\/(herald-\w+)\.service`:\n\n```ini\n([\s\S]*?)```/g)];
    assert.deepEqual(
      units.map((u) => u[1]),
      ['herald-api', 'herald-worker'],
    );
    const [api, worker] = units.map((u) => u[2]);
    assert.match(api, /^ExecStart=.* dist\/src\/cli\/main\.js serve --no-worker$/m);
    assert.match(worker, /^ExecStart=.* dist\/src\/cli\/main\.js worker$/m);
    for (const unit of [api, worker]) {
      assert.match(unit, /^User=herald$/m);
      assert.match(unit, /^Environment=DATA_DIR=\/var\/lib\/herald/m);
      assert.match(unit, /^StateDirectory=herald$/m);
      assert.match(unit, /^\[Install\]\nWantedBy=multi-user\.target$/m);
    }
  });

  whereInstalled(['docker-compose', 'docker'])(
    'Compose resolves compose.yaml: the password and key from the environment reach the API and the worker',
    async () => {
      const env = { ...process.env, POSTGRES_PASSWORD: 'pw-from-env', HERALD_SECRET_KEY: 'key-from-env' };
      const resolved =
        (await tool('docker-compose', ['-f', 'compose.yaml', 'config'], env)) ??
        (await tool('docker', ['compose', '-f', 'compose.yaml', 'config'], env).catch(() => undefined));
      assert.ok(resolved, 'Compose answers');
      assert.equal(resolved.stderr.trim(), '', 'no warning');
      const services = composeServices(resolved.stdout);
      assert.deepEqual([...services.keys()].sort(), ['api', 'postgres', 'worker']);
      for (const name of ['api', 'worker']) {
        const service = services.get(name)!;
        assert.match(service, /DATABASE_URL: postgres:\/\/herald:pw-from-env@postgres:5432\/herald/, name);
        assert.match(service, /HERALD_SECRET_KEY: key-from-env/, name);
        assert.match(service, /- data:\/data/, name);
      }
      assert.match(services.get('postgres')!, /POSTGRES_PASSWORD: pw-from-env/);
    },
  );

  whereInstalled(['systemd-analyze'])(
    'systemd-analyze verify finds nothing to say about the systemd pair',
    async () => {
      const doc = fs.readFileSync('docs/deploy.md', 'utf8');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-units-'));
      try {
        const files: string[] = [];
        for (const [, name, unit] of doc.matchAll(
          /`\/etc\/systemd\/system\/(herald-\w+\.service)`:\n\n```ini\n([\s\S]*?)```/g,
        )) {
          // verify checks that ExecStart's program exists: the Node running this test stands for Debian's.
          files.push(path.join(dir, name));
          fs.writeFileSync(files.at(-1)!, unit.replaceAll('/usr/bin/node ', `${process.execPath} `));
        }
        assert.equal(files.length, 2);
        const verified = await tool('systemd-analyze', ['verify', ...files]);
        assert.ok(verified, 'systemd-analyze answers');
        assert.equal(verified.stderr.trim(), '', 'systemd-analyze verify warns of nothing');
      } finally {
        fs.rmSync(dir, { recursive: true });
      }
    },
  );

  // Building the image takes minutes: CI runs it beside the suites (.ci/run); elsewhere it runs when asked for
  // (HERALD_CONTAINER_TEST=1, docs/deploy.md), and then a missing engine fails it rather than passing unseen.
  const whenAsked = process.env.HERALD_CONTAINER_TEST === '1' ? describe : () => undefined;
  if (process.env.HERALD_CONTAINER_TEST !== '1') {
    console.log('    the container image is built only with HERALD_CONTAINER_TEST=1 (.ci/run asks for it)');
  }
  whenAsked(`the image, built and started (${TEST_DB})`, function () {
    this.timeout(40 * 60_000);
    const tag = `herald-test:${process.pid}`;
    const baseTag = `herald-test-node:${process.pid}`;
    const containers: string[] = [];
    let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
    const docker = async (...args: string[]) =>
      (await run('docker', args, { maxBuffer: 64 * 1024 * 1024 })).stdout.trim();

    before(async () => {
      const version = await docker('info', '--format', '{{.ServerVersion}}').catch(
        (e: NodeJS.ErrnoException & { stderr?: string }) => {
          throw new Error(
            e.code === 'ENOENT'
              ? 'HERALD_CONTAINER_TEST=1 asks for the image, but there is no docker command (apt-get install docker.io)'
              : `HERALD_CONTAINER_TEST=1 asks for the image, but no engine answers: ${(e.stderr ?? e.message).trim()}`,
          );
        },
      );
      assert.ok(version, 'docker info names the engine version');
    });
    after(async () => {
      for (const id of containers) await docker('rm', '-f', '-v', id).catch(() => undefined);
      await docker('rmi', tag).catch(() => undefined);
      await docker('rmi', baseTag).catch(() => undefined);
      await docker('volume', 'rm', `herald-test-data-${process.pid}`).catch(() => undefined);
      await database?.drop();
    });

    it('serves /healthz as a user other than root, reports healthy, and runs the worker from the same image', async () => {
      const started = Date.now();
      const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;
      const base =
        process.env.HERALD_NODE_IMAGE ?? (await run('scripts/debian-node-image.sh', [baseTag])).stdout.trim();
      console.log(`      base image ${base}: ${seconds()}`);
      // Only an image made here runs this machine's Node, for which its binary was built.
      const prebuilt = process.env.HERALD_NODE_IMAGE ? undefined : await servePrebuiltSqlite();
      try {
        const mirror = prebuilt
          ? ['--network', 'host', '--build-arg', `BETTER_SQLITE3_BINARY_HOST=${prebuilt.url}`]
          : [];
        // BuildKit builds the stages side by side and snapshots layers rather than archiving them, minutes sooner;
        // a client that has it only through the buildx plugin, not installed, builds with the classic builder.
        const build = (buildKit: boolean) =>
          run('docker', ['build', ...mirror, '--build-arg', `NODE_IMAGE=${base}`, '-t', tag, '.'], {
            env: { ...process.env, DOCKER_BUILDKIT: buildKit ? '1' : '0', BUILDKIT_PROGRESS: 'plain' },
            maxBuffer: 256 * 1024 * 1024,
          });
        const built = await build(true).catch((e: { stderr?: string }) => {
          if (/buildx/.test(e.stderr ?? '')) return build(false);
          throw e;
        });
        if (prebuilt) {
          assert.doesNotMatch(
            built.stdout + built.stderr,
            /Setting up g\+\+/,
            'the binary was taken, nothing compiled',
          );
        }
      } finally {
        await prebuilt?.close();
      }
      console.log(`      image built: ${seconds()}`);
      database = await freshDatabase();
      const port = await freePort();
      const settings = [
        '--network',
        'host',
        '-v',
        `herald-test-data-${process.pid}:/data`,
        '-e',
        `PORT=${port}`,
        ...(database.databaseUrl ? ['-e', `DATABASE_URL=${database.databaseUrl}`] : []),
      ];
      const api = await docker('run', '-d', ...settings, '--health-interval=1s', tag);
      containers.push(api);
      let health = '';
      for (let i = 0; i < 60 && health !== 'healthy'; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        health = await docker('inspect', '--format', '{{.State.Health.Status}}', api);
      }
      assert.equal(health, 'healthy', 'its HEALTHCHECK passed');
      const answer = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(answer.status, 200);
      assert.equal((await answer.json()).status, true);
      assert.notEqual(await docker('exec', api, 'id', '-u'), '0');
      const files = await docker('exec', api, 'ls', '/data');
      assert.match(files, /secret\.key/, 'the master key made into the volume');
      if (TEST_DB === 'sqlite') assert.match(files, /herald\.db/);
      const worker = await docker('run', '-d', ...settings, tag, 'worker');
      containers.push(worker);
      let logs = '';
      for (let i = 0; i < 30 && !/publishing worker running/.test(logs); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const { stdout, stderr } = await run('docker', ['logs', worker]);
        logs = stdout + stderr;
      }
      assert.match(logs, /publishing worker running/);
      assert.equal(await docker('inspect', '--format', '{{.State.Status}}', worker), 'running');
      assert.match(logs, new RegExp(`"database":"${TEST_DB}"`));
    });
  });
});
