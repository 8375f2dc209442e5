// Small helpers to build the page from data: no framework, no build step.

const SVG_NS = "http://www.w3.org/2000/svg";

function setProps(el, props) {
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null) continue;
    if (key.startsWith("aria-")) el.setAttribute(key, String(value));
    else if (value === false) continue;
    else if (key === "class") el.setAttribute("class", value);
    else if (key === "text") el.textContent = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
}

function appendAll(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

/** An HTML element: h("button", {class: "x", onClick: f}, "Label"). */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  setProps(el, props);
  appendAll(el, children);
  return el;
}

/** An SVG element, same calling convention as h(). */
export function s(tag, props, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  setProps(el, props);
  appendAll(el, children);
  return el;
}

/**
 * Replace a container's content, keeping keyboard focus on the element with the same
 * data-focus key (a re-render after every server message must not lose the player's place).
 */
export function render(container, ...children) {
  replaceKeepingFocus(container, children)();
}

/**
 * `render`, with the focus given back only when the function returned is called. Giving focus
 * makes the browser lay the page out: a page that changes more of itself first, and measures
 * the new content, gives it back after, so the changes are laid out together.
 */
export function replaceKeepingFocus(container, children) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.dataset.focus : undefined;
  container.replaceChildren();
  appendAll(container, children);
  return () => {
    if (!key) return;
    const again = container.querySelector(`[data-focus="${CSS.escape(key)}"]`);
    if (again) again.focus();
  };
}

export function money(value) {
  return `$${Number(value).toLocaleString("en-US")}`;
}

/** Leave a page: stop its timers and sockets before the next one renders. */
let cleanups = [];
export function onLeave(cleanup) {
  cleanups.push(cleanup);
}
export function leavePage() {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
}
