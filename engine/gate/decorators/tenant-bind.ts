/**
 * tenant_bind, the outermost decorator: it decides who is calling. The
 * review gate runs inside it, so the proposal's `operator` is the bound user
 * id (A15). A call whose context yields no operator fails here: an
 * unattributed mutation must not reach a reviewer under a default name.
 */
import { CountersignError } from '../../errors.js';
import { said } from '../../format/said.js';
import type { ToolCallContext } from '../../tools/tool.js';
import type { ToolDecorator } from '../chain.js';

export interface TenantBindOptions {
  /**
   * Maps the call context to the operator's user id, e.g. through a session
   * table. The default reads `ctx.userId`. A blank or missing result is an
   * error (E_OPERATOR_REQUIRED), never replaced by a default.
   */
  resolve?(ctx: ToolCallContext): string | undefined | Promise<string | undefined>;
}

export function tenantBindDecorator(options: TenantBindOptions = {}): ToolDecorator {
  // Refused when the chain is built, not at every call: a resolve that is no function would fail them all.
  if (options === null || typeof options !== 'object' || (options.resolve !== undefined && typeof options.resolve !== 'function')) {
    throw new CountersignError('E_CHAIN_INVALID', `tenantBindDecorator: options must be an object whose resolve, if given, is a function (ctx) => operator id, got ${describeOption(options, 'resolve')}`, {
      fix: 'pass { resolve: (ctx) => ctx.userId } (or your session lookup), or nothing to take ctx.userId',
    });
  }
  const resolve = options.resolve ?? ((ctx: ToolCallContext) => ctx.userId);
  return {
    position: 'tenant_bind',
    wrap: (next, tool) => async (call) => {
      let resolved: string | undefined;
      try {
        resolved = await resolve(call.ctx);
      } catch (err) {
        // The host's lookup (a session table, a token check) failed: still no operator, and nothing ran.
        throw new CountersignError('E_OPERATOR_REQUIRED',
          `tool "${tool.name}" was called, but tenant_bind's resolve failed to name its operator: ${err instanceof Error ? err.message || err.name : String(err)}`, {
            fix: 'fix what the resolve function reads (it threw), then call again; nothing ran',
            cause: err,
          });
      }
      const operator = typeof resolved === 'string' ? resolved.trim() : '';
      // A user id that is there but is no string (a number from a session table) is said as what it is, not as missing.
      if (resolved !== undefined && resolved !== null && typeof resolved !== 'string') {
        const source = options.resolve ? 'tenant_bind\'s resolve returned' : 'ctx.userId is';
        throw new CountersignError('E_OPERATOR_REQUIRED',
          `tool "${tool.name}" was called without an operator: ${source} ${Array.isArray(resolved) ? `a list (${said(resolved)})` : typeof resolved === 'function' ? 'a function' : `${typeof resolved === 'object' ? 'an' : 'a'} ${typeof resolved} (${said(resolved)})`}, not a user id string`, {
            fix: `pass the operator's user id as a string${options.resolve ? ' from resolve' : ' in ctx.userId'} (e.g. String(id)); nothing ran`,
          });
      }
      if (operator === '') {
        throw new CountersignError('E_OPERATOR_REQUIRED',
          `tool "${tool.name}" was called without an operator: tenant_bind found no user id in the call context`, {
            fix: 'pass the operator\'s user id as ctx.userId (or configure tenantBindDecorator({resolve})); nothing ran',
          });
      }
      return next({ ...call, operator });
    },
  };
}

/** What a bad options value is, for the message: the object's `key` when it is one, else the value itself. */
function describeOption(options: unknown, key: string): string {
  if (options === null || typeof options !== 'object') return said(options);
  return `${key} ${said((options as Record<string, unknown>)[key])}`;
}
