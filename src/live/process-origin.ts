/** Identifies this process among the serving processes (NOTIFY payloads, the webhook outbox's claims), so that it can tell its own. */
export const PROCESS_ORIGIN = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
