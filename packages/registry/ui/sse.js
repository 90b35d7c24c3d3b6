// Server-Sent Events read as they arrive: text in, whole events out, each with its name, its data (parsed when it
// is JSON, as the gateway writes it) and the text it came as.

/** A reader to push the stream's text into; each push returns the events it completed. */
export function sseReader() {
  let buffered = '';
  return {
    push(text) {
      buffered += text.replace(/\r\n?/g, '\n');
      const events = [];
      for (let end = buffered.indexOf('\n\n'); end !== -1; end = buffered.indexOf('\n\n')) {
        events.push(parseEvent(buffered.slice(0, end + 2)));
        buffered = buffered.slice(end + 2);
      }
      return events;
    },
    /** What came after the last whole event (a stream cut off mid-event). */
    rest() {
      return buffered;
    },
  };
}

function parseEvent(raw) {
  let event = 'message';
  const lines = [];
  for (const line of raw.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) lines.push(line.slice(5).replace(/^ /, ''));
  }
  let data = lines.join('\n');
  try {
    data = JSON.parse(data);
  } catch {
    // Not JSON: kept as text.
  }
  return { event, data, raw };
}
