/**
 * What the commands of main.ts act with, imported only when a command runs, so `herald --help` and a mistyped
 * command load none of it (the domain's rules over the database, the publishing engine and its connectors).
 */
export { toChannelView } from '../domain/directory.js';
export { importMediaFromUrl } from '../domain/media/media-import.js';
export { CONNECT_FLOW_MS, connectChannel } from '../domain/networks/channel-connections.js';
export { checkChannelConnection } from '../domain/networks/connection-check.js';
export { chooseAccount, chooseUser, chooseWorkspace } from '../domain/operator-choices.js';
export * as provisioning from '../domain/provisioning.js';
export { parseSlotList } from '../domain/queue/slots.js';
export { postExternal, setSandboxFailure } from '../publishing/engine.js';
