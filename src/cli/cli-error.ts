/** A refusal the CLI says in one line, without a stack: bad usage (exit 2), or a start that cannot go on. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}
