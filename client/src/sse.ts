/** One Server-Sent Event, as the HTML standard's parser dispatches it. */
export interface ServerSentEvent {
  /** The `event` field, `message` when absent. */
  event: string;
  /** The `data` lines, joined by `\n`. */
  data: string;
  /** The last event id seen on this connection (the `id` field of this event or an earlier one). */
  id: string | undefined;
  /** A `retry` field's reconnection time in milliseconds, when this event carried one. */
  retry: number | undefined;
}

/**
 * The events of a `text/event-stream` body (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
 * lines end with CR LF, LF or CR; `:` starts a comment; a blank line dispatches the event when
 * it has data. Node 20 has `fetch` but no `EventSource`, so this reads the body of a `fetch`.
 * `onData` is called whenever bytes arrive (comments included: the server's heartbeats).
 */
export async function* readEvents(body: ReadableStream<Uint8Array>, lastEventId?: string, onData?: () => void): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let retry: number | undefined;
  let id = lastEventId;
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      onData?.();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      if (buffer.startsWith('\uFEFF')) buffer = buffer.slice(1);
      for (;;) {
        const end = buffer.search(/\r\n|\r|\n/);
        // A CR at the end of what arrived may be the first half of a CR LF.
        if (end === -1 || (!done && end === buffer.length - 1 && buffer[end] === '\r')) break;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
        if (line === '') {
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id, retry };
          data = [];
          event = '';
          retry = undefined;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
        else if (field === 'id' && !value.includes('\0')) id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
      }
      // An event not ended by a blank line when the stream ends is dropped, as the standard says.
      if (done) {
        finished = true;
        return;
      }
    }
  } finally {
    // Left early (the caller stopped reading): the rest of the body is not wanted.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
