// Preloaded into a CLI process (NODE_OPTIONS=--require) by herald-cli-help.test.ts: as the process ends, it says on
// stderr whether node-postgres was loaded, which a command on SQLite must not pay for.
process.on('exit', () => {
  if (Object.keys(require.cache).some((file) => /[\\/]node_modules[\\/]pg[\\/]/.test(file)))
    process.stderr.write('(node-postgres was loaded)\n');
});
