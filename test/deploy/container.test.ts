/**
 * The deployment files: the Dockerfile, compose.yaml and the systemd pair in docs/deploy.md say what a deployment
 * needs (read here, always); compose.yaml is resolved by Compose and the units verified by `systemd-analyze verify`
 * where those tools are (CI installs them, so there they must be); and with HERALD_CONTAINER_TEST=1 the image is
 * built, started, and answers /healthz as a user other than root, with its worker as the same image; then
 * compose.yaml is started for real (`docker-compose up`, then `down -v` whatever happened): the API alone on
 * Postgres makes the demo account, whose key creates a post due now on its sandbox channel; the API publishes
 * nothing (--no-worker), and once the worker's container starts it publishes the post, once.
 *
 * CI runs the image's build beside the suites at low priority (.ci/run), since it takes minutes: a base image made
 * from Debian's archive (HERALD_NODE_IMAGE names one instead), dependencies unpacked, dist/ built, and better-sqlite3
 * taken prebuilt from this machine, where the same locked source was compiled for the same Node, served as the
 * mirror prebuild-install reads (no GitHub here), so the image compiles nothing. compose.yaml's official postgres
 * image cannot be pulled here: beside Herald's, on the same base, the test builds Debian's PostgreSQL started as the
 * official image starts (test/support/postgres-image), and names both images to Compose (HERALD_POSTGRES_IMAGE,
 * HERALD_IMAGE).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
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
  const target = `node-v${process.versions.modules}-${process.platform}-${process.arch}`;
  const name = `better-sqlite3-v${version}-${target}.tar.gz`;
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
  it('the Dockerfile builds in stages, runs as its own user, keeps DATA_DIR in a volume and checks /healthz', () => {
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

  it("every way the project starts Herald gives node make run's heap options", async () => {
    const flags = /^HERALD_NODE_FLAGS := (.+)$/m.exec(fs.readFileSync('Makefile', 'utf8'))?.[1].split(' ') ?? [];
    assert.ok(flags.includes('--max-semi-space-size=8'), `make run's options: ${flags}`);
    const { HERALD_NODE_FLAGS } = await import('../../bench/processes.js');
    assert.deepEqual(HERALD_NODE_FLAGS, flags, "the benchmarks' Herald");
    const entrypoint = dockerfileStages(fs.readFileSync('Dockerfile', 'utf8'))
      .at(-1)!
      .find((i) => i.keyword === 'ENTRYPOINT')!;
    assert.deepEqual(JSON.parse(entrypoint.args), ['node', ...flags, 'dist/src/cli/main.js'], 'the image');
    const commands = ['docs/deploy.md', 'docs/operations.md'].flatMap((doc) =>
      [...fs.readFileSync(doc, 'utf8').matchAll(/\bnode (.*?) ?dist\/src\/cli\/main\.js/g)].map((m) => [doc, m[1]]),
    );
    assert.ok(commands.length >= 5, `${commands.length} commands in the docs`);
    for (const [doc, options] of commands) assert.equal(options, flags.join(' '), doc);
  });

  it('compose.yaml runs Postgres, the API and the worker, one image with two commands, sharing the data volume', () => {
    const services = composeServices(fs.readFileSync('compose.yaml', 'utf8'));
    assert.deepEqual([...services.keys()], ['postgres', 'api', 'worker']);
    const api = services.get('api')!;
    const worker = services.get('worker')!;
    // The official images by default; another named where no registry is reachable (the container test's own).
    assert.match(services.get('postgres')!, /image: \$\{HERALD_POSTGRES_IMAGE:-postgres:\d+\}$/m);
    assert.match(api, /^ {4}image: \$\{HERALD_IMAGE:-herald\}$/m);
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
      assert.match(services.get('postgres')!, /image: postgres:17$/m, 'the official image unless another is named');
      assert.match(services.get('worker')!, /image: herald$/m);
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
    const postgresTag = `herald-test-postgres:${process.pid}`;
    const project = `herald-test-${process.pid}`;
    const containers: string[] = [];
    let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
    let composed: { env: NodeJS.ProcessEnv; dir: string } | undefined;
    const docker = async (...args: string[]) =>
      (await run('docker', args, { maxBuffer: 64 * 1024 * 1024 })).stdout.trim();
    const logsOf = async (container: string) => {
      const { stdout, stderr } = await run('docker', ['logs', container], { maxBuffer: 64 * 1024 * 1024 });
      return stdout + stderr;
    };
    // Compose as CI installs it (docker-compose), else the engine's plugin, on compose.yaml as written, with the
    // test's images named and the healthchecks asked every second (the API's first check would otherwise wait 30 s).
    const compose = async (...args: string[]) => {
      if (!composed) throw new Error('compose.yaml is not started');
      const files = ['-p', project, '-f', 'compose.yaml', '-f', path.join(composed.dir, 'quick-health.yaml')];
      const options = { env: composed.env, maxBuffer: 64 * 1024 * 1024 };
      const answer = await run('docker-compose', [...files, ...args], options).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'ENOENT') return run('docker', ['compose', ...files, ...args], options);
        throw e;
      });
      return answer.stdout.trim();
    };
    // A service's container, found by the labels Compose gives it: the engine answers at once, Compose in seconds.
    const containerOf = (service: string) =>
      docker(
        'ps',
        '-q',
        '--filter',
        `label=com.docker.compose.project=${project}`,
        '--filter',
        `label=com.docker.compose.service=${service}`,
      );
    const until = async <T>(what: string, seconds: number, look: () => Promise<T | undefined>): Promise<T> => {
      for (let i = 0; i < seconds; i += 1) {
        const found = await look();
        if (found !== undefined) return found;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      throw new Error(`${what}: not within ${seconds} s`);
    };
    const healthy = (container: string) => async () =>
      (await docker('inspect', '--format', '{{.State.Health.Status}}', container)) === 'healthy' ? true : undefined;

    // Herald's image and a Postgres (test/support/postgres-image: Debian's, started as the official image starts,
    // for compose.yaml) are built side by side on one base image.
    before('an engine, and the images', async () => {
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
      const started = Date.now();
      const seconds = () => `${Math.round((Date.now() - started) / 1000)} s`;
      const base =
        process.env.HERALD_NODE_IMAGE ?? (await run('scripts/debian-node-image.sh', [baseTag])).stdout.trim();
      console.log(`      base image ${base}: ${seconds()}`);
      // BuildKit builds the stages side by side and snapshots layers rather than archiving them, minutes sooner;
      // a client that has it only through the buildx plugin, not installed, builds with the classic builder.
      const build = async (args: string[]) => {
        const builder = (buildKit: boolean) =>
          run('docker', ['build', '--network', 'host', ...args], {
            env: { ...process.env, DOCKER_BUILDKIT: buildKit ? '1' : '0', BUILDKIT_PROGRESS: 'plain' },
            maxBuffer: 256 * 1024 * 1024,
          });
        return builder(true).catch((e: { stderr?: string }) => {
          if (/buildx/.test(e.stderr ?? '')) return builder(false);
          throw e;
        });
      };
      const herald = async () => {
        // Only an image made here runs this machine's Node, for which its binary was built.
        const prebuilt = process.env.HERALD_NODE_IMAGE ? undefined : await servePrebuiltSqlite();
        try {
          const mirror = prebuilt ? ['--build-arg', `BETTER_SQLITE3_BINARY_HOST=${prebuilt.url}`] : [];
          const built = await build([...mirror, '--build-arg', `NODE_IMAGE=${base}`, '-t', tag, '.']);
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
      };
      const postgres = async () => {
        await build(['--build-arg', `BASE_IMAGE=${base}`, '-t', postgresTag, 'test/support/postgres-image']);
        console.log(`      Postgres image built: ${seconds()}`);
      };
      await Promise.all([herald(), postgres()]);
    });

    after(async () => {
      if (composed) {
        const started = Date.now();
        await compose('down', '-v', '--remove-orphans').catch((e: { stderr?: string }) => console.log(e.stderr));
        console.log(`      compose down: ${Math.round((Date.now() - started) / 1000)} s`);
        fs.rmSync(composed.dir, { recursive: true });
      }
      for (const id of containers) await docker('rm', '-f', '-v', id).catch(() => undefined);
      await docker('rmi', tag).catch(() => undefined);
      await docker('rmi', postgresTag).catch(() => undefined);
      await docker('rmi', baseTag).catch(() => undefined);
      await docker('volume', 'rm', `herald-test-data-${process.pid}`).catch(() => undefined);
      await database?.drop();
    });

    it('serves /healthz as a user other than root, is healthy, and runs the worker from the same image', async () => {
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
      await until('its HEALTHCHECK passed', 60, healthy(api));
      const answer = await fetch(`http://127.0.0.1:${port}/healthz`);
      assert.equal(answer.status, 200);
      assert.equal((await answer.json()).status, true);
      assert.notEqual(await docker('exec', api, 'id', '-u'), '0');
      const files = await docker('exec', api, 'ls', '/data');
      assert.match(files, /secret\.key/, 'the master key made into the volume');
      if (TEST_DB === 'sqlite') assert.match(files, /herald\.db/);
      const worker = await docker('run', '-d', ...settings, tag, 'worker');
      containers.push(worker);
      const logs = await until('the worker runs', 30, async () => {
        const logs = await logsOf(worker);
        return /publishing worker running/.test(logs) ? logs : undefined;
      });
      assert.equal(await docker('inspect', '--format', '{{.State.Status}}', worker), 'running');
      assert.match(logs, new RegExp(`"database":"${TEST_DB}"`));
    });

    it('compose.yaml starts: the demo key posts through the API, and the worker, apart, publishes once', async () => {
      const started = Date.now();
      const port = await freePort();
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-compose-'));
      const quick = (service: string) => `  ${service}:\n    healthcheck:\n      interval: 1s\n`;
      fs.writeFileSync(path.join(dir, 'quick-health.yaml'), `services:\n${quick('postgres')}${quick('api')}`);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        HERALD_IMAGE: tag,
        HERALD_POSTGRES_IMAGE: postgresTag,
        HERALD_PORT: String(port),
        BASE_URL: `http://127.0.0.1:${port}`,
        POSTGRES_PASSWORD: crypto.randomBytes(12).toString('hex'),
      };
      // Unset, as in compose.yaml's first start: the API makes the key into the volume the worker shares.
      delete env.HERALD_SECRET_KEY;
      composed = { env, dir };
      try {
        await compose('up', '-d', '--no-build', 'api');
        const api = await containerOf('api');
        await until('the API is healthy', 90, healthy(api));
        console.log(`      compose: the API healthy on Postgres in ${Math.round((Date.now() - started) / 1000)} s`);
        const apiLogs = await logsOf(api);
        assert.match(apiLogs, /Herald created a demo account on this empty database/);
        assert.match(apiLogs, /"message":"herald listening".*"database":"postgres"/);
        const key = await docker('exec', api, 'cat', '/data/demo-api-key');
        const rest = async (route: string, init: RequestInit = {}) => {
          const answer = await fetch(`http://127.0.0.1:${port}/v1/rest${route}`, {
            ...init,
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          });
          assert.ok(answer.ok, `${init.method ?? 'GET'} ${route}: ${answer.status} ${await answer.clone().text()}`);
          return (await answer.json()).data;
        };
        const channels: { id: string; network: string }[] = await rest('/channels');
        const sandbox = channels.find((channel) => channel.network === 'sandbox');
        assert.ok(sandbox, 'the demo account has a sandbox channel');
        const text = `Hello from compose.yaml (${project})`;
        const [created] = await rest('/posts', {
          method: 'POST',
          body: JSON.stringify({ channelIds: [sandbox.id], text }),
        });
        assert.match(created.id, /^[0-9a-z]+$/);
        const read = () => rest(`/posts/${created.id}`);

        // Due now, yet the API was started without its worker (--no-worker): six of a worker's polls later it waits.
        await new Promise((resolve) => setTimeout(resolve, 3000));
        const waiting = await read();
        assert.deepEqual([waiting.status, waiting.attempts], ['scheduled', []], 'the API published nothing');

        await compose('up', '-d', '--no-build', 'worker');
        const worker = await containerOf('worker');
        assert.ok(worker && worker !== api, 'the worker runs in a container of its own');
        const imageOf = (container: string) => docker('inspect', '--format', '{{.Image}}', container);
        assert.equal(await imageOf(worker), await imageOf(api), 'one image with two commands');
        const published = await until('the post is published', 60, async () => {
          const post = await read();
          return post.status === 'published' ? post : undefined;
        });
        assert.deepEqual(
          published.attempts.map((a: { number: number; outcome: string }) => [a.number, a.outcome]),
          [[1, 'published']],
        );
        const page = await fetch(published.permalinkUrl);
        assert.equal(page.status, 200);
        assert.ok((await page.text()).includes(text), 'the sandbox shows the post');
        // The worker container's own attempt (its id names its host), and on the network once, a few polls later too.
        const postgres = await containerOf('postgres');
        const sql = (query: string) =>
          docker('exec', postgres, 'psql', '-U', 'herald', '-d', 'herald', '-At', '-c', query);
        const hostname = await docker('inspect', '--format', '{{.Config.Hostname}}', worker);
        const attemptedBy = await sql(`SELECT worker_id FROM publish_attempts WHERE post_id = '${created.id}'`);
        assert.equal(attemptedBy.split(':')[0], hostname, 'published by the worker container');
        await new Promise((resolve) => setTimeout(resolve, 2000));
        assert.equal(await sql(`SELECT count(*) FROM sandbox_posts WHERE text = '${text}'`), '1', 'published once');
        assert.match(await logsOf(worker), /"message":"publishing worker running".*"database":"postgres"/);
        console.log(`      compose: the post published in ${Math.round((Date.now() - started) / 1000)} s`);
      } catch (e) {
        console.log(await compose('logs', '--no-color', '--tail', '40').catch(() => 'no logs from Compose'));
        throw e;
      }
    });
  });
});
