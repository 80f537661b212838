import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { seedDemoIfEmpty } from '../demo.js';
import { createLogger } from '../logger.js';
import { startHerald } from '../server.js';
import { CliError } from './cli-error.js';

/** `herald serve`: the API (and, unless told otherwise, the publishing worker) until SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger();
  const herald = await startHerald(config, logger).catch((error: unknown) => {
    throw listenRefusal(error, config) ?? error;
  });
  const demo = await seedDemoIfEmpty(herald.deps, config.dataDir);
  // The demo key and password go to a person at a terminal, never into a service's log.
  if (demo && !process.stdout.isTTY) {
    process.stdout.write(
      [
        '',
        'Herald created a demo account on this empty database. Its API key and sign-in are in files readable only by ' +
          'this user:',
        `  ${config.dataDir}/demo-api-key`,
        `  ${config.dataDir}/demo-credentials`,
        `The web app is at ${herald.config.baseUrl}/app.`,
        '',
      ].join('\n') + '\n',
    );
  } else if (demo) {
    process.stdout.write(
      [
        '',
        'Herald created a demo account on this empty database. Shown once; also written to DATA_DIR:',
        `  API key:   ${demo.apiKey}          (${config.dataDir}/demo-api-key)`,
        `  Sign in:   ${demo.email} / ${demo.password}   (${config.dataDir}/demo-credentials)`,
        `  Channels:  ${demo.channelIds.join(', ')}`,
        `  Web app:   ${herald.config.baseUrl}/app  (sign in with the demo user)`,
        '',
        `  curl -H "Authorization: Bearer $(cat ${config.dataDir}/demo-api-key)" ` +
          `${herald.config.baseUrl}/v1/rest/channels`,
        '',
      ].join('\n') + '\n',
    );
  }
  if (!demo) {
    // A later start: where to go, and where the demo account's key and sign-in were written when it was made.
    const base = herald.config.baseUrl;
    const keyFile = path.join(config.dataDir, 'demo-api-key');
    const lines = [`Herald is at ${base}: the web app at ${base}/app, the API reference at ${base}/docs.`];
    const credentialsFile = path.join(config.dataDir, 'demo-credentials');
    if (fs.existsSync(keyFile)) {
      lines.push(`The demo account's API key and sign-in are in ${keyFile} and ${credentialsFile}.`);
    }
    process.stdout.write(lines.join('\n') + '\n');
  }
  logger.info('herald listening', {
    url: herald.config.baseUrl,
    port: herald.config.port,
    database: config.databaseUrl ? 'postgres' : 'sqlite',
  });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info('shutting down', { signal });
    await herald.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** A port Herald cannot listen on, in one line that says what to do, instead of the system's stack. */
function listenRefusal(error: unknown, config: Config): CliError | undefined {
  const { code, syscall } = error as { code?: string; syscall?: string };
  if (syscall !== 'listen') return undefined;
  const where = `${config.host}:${config.port}`;
  if (code === 'EADDRINUSE') {
    const message = `Port ${config.port} is already in use on ${config.host} (another Herald? herald status says)`;
    return new CliError(`${message}: stop it, or set PORT to another port.`, 1);
  }
  if (code === 'EACCES') {
    return new CliError(`Herald may not listen on ${where}: set PORT to 1024 or above, or let it bind there.`, 1);
  }
  if (code === 'EADDRNOTAVAIL') {
    return new CliError(`This machine has no address ${config.host}: set HOST to one of its addresses, or 0.0.0.0.`, 1);
  }
  return undefined;
}
