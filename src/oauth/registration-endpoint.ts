/** POST /oauth2/mcp/register: RFC 7591 dynamic client registration. */
import type { RequestHandler } from 'express';
import type { DomainDeps } from '../domain/deps.js';
import { consumeRegistrationBudget } from '../domain/oauth/client-address-throttles.js';
import { registerClient } from '../domain/oauth/client-registration.js';

export function registrationEndpoint(deps: DomainDeps): RequestHandler {
  return async (req, res) => {
    await consumeRegistrationBudget(deps, req.ip ?? 'unknown');
    const client = await registerClient(deps, req.body);
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json(client);
  };
}
