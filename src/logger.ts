/** One-line JSON logs on stderr. Never pass secrets: messages and errors are written as given. */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, error?: unknown): void;
}

export function createLogger(options: { quiet?: boolean } = {}): Logger {
  const write = (level: string, message: string, fields: Record<string, unknown>) => {
    if (options.quiet && level !== 'error') return;
    process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }) + '\n');
  };
  return {
    info: (message, fields = {}) => write('info', message, fields),
    warn: (message, fields = {}) => write('warn', message, fields),
    error: (message, error) =>
      write('error', message, {
        error:
          error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
      }),
  };
}
