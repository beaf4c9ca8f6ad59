// The flow, once a second: from the server-sent stream while it delivers, from polling GET /flow while it
// does not (a proxy that buffers streams, a reconnecting EventSource), so the page never freezes silently.
const STALE_MS = 2500;
const RETRY_STREAM_MS = 10_000;

/** Calls onFlow(flow) for each snapshot and onStatus("live" | "polling" | "offline") when that changes. */
export function subscribeFlow(onFlow, onStatus) {
  let lastAt = 0;
  let status = "";
  let stream = null;
  const setStatus = (s) => {
    if (s !== status) {
      status = s;
      onStatus(s);
    }
  };
  const receive = (flow, via) => {
    lastAt = Date.now();
    setStatus(via);
    onFlow(flow);
  };

  const openStream = () => {
    if (typeof EventSource !== "function") return;
    stream = new EventSource("/flow/stream");
    stream.addEventListener("flow", (e) => {
      try {
        receive(JSON.parse(e.data), "live");
      } catch {
        // A malformed event is skipped; the next one comes within a second.
      }
    });
    stream.addEventListener("error", () => {
      // EventSource retries by itself unless the server refused the stream outright.
      if (stream && stream.readyState === EventSource.CLOSED) {
        stream = null;
        setTimeout(openStream, RETRY_STREAM_MS);
      }
    });
  };
  openStream();

  let polling = false;
  setInterval(async () => {
    if (Date.now() - lastAt < STALE_MS || polling) return;
    polling = true;
    try {
      const res = await fetch("/flow", { headers: { accept: "application/json" } });
      if (res.ok) receive(await res.json(), "polling");
      else setStatus("offline");
    } catch {
      setStatus("offline");
    } finally {
      polling = false;
    }
  }, 1000);
}
