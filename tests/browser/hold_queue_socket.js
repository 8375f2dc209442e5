// Holds the page's Play now socket connecting, as on a slow network, until the test calls
// window.releaseQueue(); every other socket opens as usual.
(() => {
  const Native = window.WebSocket;
  window.releaseQueue = null;
  window.WebSocket = function (url, protocols) {
    if (!String(url).endsWith("/ws/queue")) return new Native(url, protocols);
    // Connecting, as a socket is on a slow network, until the test calls releaseQueue().
    const held = {
      readyState: Native.CONNECTING,
      send() {
        throw new DOMException("Still in CONNECTING state.", "InvalidStateError");
      },
      close() {},
    };
    window.releaseQueue = () => {
      const real = new Native(url, protocols);
      for (const name of ["onopen", "onmessage", "onclose", "onerror"]) {
        real[name] = (event) => held[name]?.(event);
      }
      Object.defineProperty(held, "readyState", { get: () => real.readyState });
      held.send = (data) => real.send(data);
      held.close = (...args) => real.close(...args);
    };
    return held;
  };
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
})();
