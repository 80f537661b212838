import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * A real WordPress from Debian's packages (`wordpress`, `mariadb-server`, `php-cli`, `php-mysql`), installed without
 * a browser: a MariaDB of its own in a temporary directory (on a socket, no TCP, no grant tables: nothing else can
 * reach it), PHP's built-in server on a loopback port, the install and an Application Password made from PHP's
 * command line. Start it once per test file: it takes a few seconds.
 *
 * Debian's wp-config.php reads the site's settings only from /etc/wordpress/config-<name>.php, so the site's file is
 * written there under a name of its own and removed on close. `WP_ENVIRONMENT_TYPE` local lets Application Passwords
 * work over http.
 */
const run = promisify(execFile);
const WORDPRESS = '/usr/share/wordpress';

export interface LocalWordPress {
  url: string;
  username: string;
  applicationPassword: string;
  /** Calls the site's REST API as the admin (GET unless a body is given). */
  rest(
    route: string,
    init?: { method?: string; body?: unknown; query?: Record<string, string> },
  ): Promise<{ status: number; json: any; headers: Headers }>;
  close(): Promise<void>;
}

async function requirePackages(): Promise<void> {
  try {
    await fs.access(path.join(WORDPRESS, 'wp-load.php'));
    await run('mariadbd', ['--version']);
    await run('php', ['-r', 'exit(extension_loaded("mysqli") ? 0 : 1);']);
  } catch {
    throw new Error(
      "The WordPress tests need Debian's packages: " +
        'apt-get install wordpress mariadb-server php-cli php-mysql (as .ci/run does)',
    );
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`WordPress test support: ${what} did not happen in time`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startWordPress(): Promise<LocalWordPress> {
  await requirePackages();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'herald-wordpress-'));
  const socket = path.join(dir, 'mysql.sock');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const configName = `herald-test-${port}`;
  const configFile = `/etc/wordpress/config-${configName}.php`;
  const children: ChildProcess[] = [];
  const close = async () => {
    // Each in a process group of its own: PHP's server forks its workers, which must go with it.
    for (const child of children)
      if (child.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
    await Promise.all(
      children.map((child) =>
        child.exitCode === null && child.signalCode === null
          ? new Promise((resolve) => child.once('exit', resolve))
          : undefined,
      ),
    );
    await fs.rm(configFile, { force: true });
    await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    // An empty data directory: without grant tables MariaDB needs no system tables, so mysql_install_db (seconds
    // on a busy machine) is not run.
    await fs.mkdir(path.join(dir, 'db'));
    children.push(
      spawn(
        'mariadbd',
        [
          '--no-defaults',
          `--datadir=${dir}/db`,
          `--socket=${socket}`,
          '--skip-networking',
          '--skip-grant-tables',
          '--user=root',
          '--innodb-buffer-pool-size=16M',
          '--innodb-log-file-size=8M',
          '--innodb-flush-log-at-trx-commit=0',
          '--innodb-doublewrite=0',
          `--pid-file=${dir}/mariadb.pid`,
        ],
        { stdio: 'ignore', detached: true },
      ),
    );
    const sql = (statement: string) => run('mariadb', ['--no-defaults', '-S', socket, '-u', 'root', '-e', statement]);
    await until(async () => {
      await sql('SELECT 1');
      return true;
    }, 'MariaDB starting');
    await sql('CREATE DATABASE wordpress');

    await fs.mkdir(path.join(dir, 'content/uploads'), { recursive: true });
    await fs.mkdir(path.join(dir, 'content/plugins'));
    await fs.symlink(path.join(WORDPRESS, 'wp-content/themes'), path.join(dir, 'content/themes'));
    const salts = [
      'AUTH_KEY',
      'SECURE_AUTH_KEY',
      'LOGGED_IN_KEY',
      'NONCE_KEY',
      'AUTH_SALT',
      'SECURE_AUTH_SALT',
      'LOGGED_IN_SALT',
      'NONCE_SALT',
    ]
      .map((name) => `define('${name}', '${name.toLowerCase()}-${port}');`)
      .join('\n');
    await fs.writeFile(
      configFile,
      `<?php
define('DB_NAME', 'wordpress'); define('DB_USER', 'root'); define('DB_PASSWORD', '');
define('DB_HOST', 'localhost:${socket}');
define('WP_HOME', '${url}'); define('WP_SITEURL', '${url}');
define('WP_CONTENT_DIR', '${dir}/content');
define('WP_ENVIRONMENT_TYPE', 'local');
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('DISABLE_WP_CRON', true);
${salts}
`,
    );
    // Debian's wp-config.php picks its file by WORDPRESS_CONFIG, which the router passes on from the environment.
    await fs.writeFile(
      path.join(dir, 'router.php'),
      "<?php\n$_SERVER['WORDPRESS_CONFIG'] = getenv('WORDPRESS_CONFIG');\nreturn false;\n",
    );
    const setup = `
      $_SERVER['HTTP_HOST'] = '127.0.0.1:${port}';
      $_SERVER['WORDPRESS_CONFIG'] = '${configName}';
      define('WP_INSTALLING', true);
      require '${WORDPRESS}/wp-load.php';
      require_once ABSPATH . 'wp-admin/includes/upgrade.php';
      wp_install('Herald test site', 'admin', 'admin@example.com', false, '', wp_generate_password(24));
      wp_insert_term('Releases', 'category', ['slug' => 'releases']);
      echo WP_Application_Passwords::create_new_application_password(1, ['name' => 'herald'])[0];
    `;
    const { stdout } = await run('php', ['-r', setup], { env: { ...process.env, WORDPRESS_CONFIG: configName } });
    const applicationPassword = stdout.trim().split('\n').pop()!.trim();
    if (!/^[A-Za-z0-9]{24}$/.test(applicationPassword))
      throw new Error(`WordPress test support: the install printed ${stdout.slice(0, 500)}`);

    children.push(
      spawn('php', ['-S', `127.0.0.1:${port}`, '-t', WORDPRESS, path.join(dir, 'router.php')], {
        stdio: 'ignore',
        detached: true,
        env: { ...process.env, WORDPRESS_CONFIG: configName, PHP_CLI_SERVER_WORKERS: '2' },
      }),
    );
    const auth = `Basic ${Buffer.from(`admin:${applicationPassword}`).toString('base64')}`;
    const rest: LocalWordPress['rest'] = async (route, init = {}) => {
      const target = new URL(`${url}/`);
      target.searchParams.set('rest_route', route);
      for (const [name, value] of Object.entries(init.query ?? {})) target.searchParams.set(name, value);
      const res = await fetch(target, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: { authorization: auth, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const text = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.status, json, headers: res.headers };
    };
    await until(async () => (await rest('/wp/v2/users/me')).status === 200, 'the PHP server answering');
    return { url, username: 'admin', applicationPassword, rest, close };
  } catch (error) {
    await close();
    throw error;
  }
}
