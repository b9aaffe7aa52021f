/**
 * Who a verified access token speaks for, as one key: what owns sessions (2025-11-25 HTTP
 * sessions, in this process and in a shared session store) and tasks (the tasks extension of
 * the stateless revisions). No imports beyond the `AuthInfo` type: the transports and the task
 * code use it without the JWT machinery of ./resource.ts.
 */
import type { AuthInfo } from '../jsonrpc/transport.js';

/**
 * The principal id of a verified token: its issuer (`iss` claim, `""` when none, e.g. an
 * introspection answer without one) with its `subject`; without a subject, the issuer with
 * its `clientId` (a client acting for itself); without either, the issuer alone. A JSON array
 * (`["sub","https://as.example","alice"]`), so that no two principals share an id whatever
 * characters the values hold. Undefined for no token.
 */
export function principalId(auth: AuthInfo | undefined): string | undefined {
  if (!auth) return undefined;
  const iss = typeof auth.claims?.iss === 'string' ? auth.claims.iss : '';
  if (auth.subject !== undefined) return JSON.stringify(['sub', iss, auth.subject]);
  if (auth.clientId !== undefined) return JSON.stringify(['client', iss, auth.clientId]);
  return JSON.stringify(['anonymous', iss]);
}
