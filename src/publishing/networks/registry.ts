import type { NetworkConnector } from '../../domain/networks/connector.js';

/** The connectors this instance can publish through, by the network name channels carry. */
export class NetworkRegistry {
  private readonly networks = new Map<string, NetworkConnector>();

  register(name: string, network: NetworkConnector): this {
    this.networks.set(name, network);
    return this;
  }

  get(name: string): NetworkConnector | undefined {
    return this.networks.get(name);
  }
}
