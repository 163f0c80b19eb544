/**
 * The least snapshot context a waiting run's record holds: what every step
 * reads (engine/run/context-shape.ts). Stores refuse a host's waiting
 * record without it, so test records carry it.
 */
export const CONTEXT = { vars: {}, nodes: {}, meta: { executionId: 'test-run', workflowId: 'test', userId: 'local' }, attempt: 0 };
