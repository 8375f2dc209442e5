// Short cues synthesized with the Web Audio API: no sound files. Browsers let a page make sound
// only after the person has interacted with it, so the AudioContext is made on the first
// pointerdown or keydown; until then play() stays silent. A mute switch is remembered.

const STORAGE_KEY = "cash-stash:sound";
const VOLUME = 0.12;

/** Each cue: notes of [frequency in Hz, start in s, length in s, waveform]; all under 0.6 s. */
const CUES = {
  turn: [
    [880, 0, 0.28, "sine"],
    [1318.5, 0.11, 0.3, "sine"],
  ],
  challenge: [
    [740, 0, 0.12, "triangle"],
    [740, 0.13, 0.12, "triangle"],
    [988, 0.26, 0.24, "triangle"],
  ],
  won: [
    [523.25, 0, 0.2, "sine"],
    [659.25, 0.08, 0.2, "sine"],
    [783.99, 0.16, 0.2, "sine"],
    [1046.5, 0.24, 0.3, "sine"],
  ],
  lost: [
    [392, 0, 0.2, "triangle"],
    [311.13, 0.14, 0.2, "triangle"],
    [261.63, 0.28, 0.3, "triangle"],
  ],
  gameover: [
    [523.25, 0, 0.3, "sine"],
    [659.25, 0, 0.3, "sine"],
    [783.99, 0, 0.3, "sine"],
    [1046.5, 0.2, 0.38, "sine"],
  ],
};

let context = null;
const played = [];
let mutedHere = storedMuted();

function unlock() {
  if (!context) {
    const Context = window.AudioContext ?? window.webkitAudioContext;
    if (!Context) return;
    context = new Context();
  }
  if (context.state === "suspended") context.resume();
}

window.addEventListener("pointerdown", unlock, { capture: true });
window.addEventListener("keydown", unlock, { capture: true });
window.addEventListener("storage", (event) => {
  if (event.key === STORAGE_KEY) setMuted(storedMuted());
});

function note(output, [frequency, start, length, wave]) {
  const at = context.currentTime + start;
  const oscillator = context.createOscillator();
  const envelope = context.createGain();
  oscillator.type = wave;
  oscillator.frequency.setValueAtTime(frequency, at);
  envelope.gain.setValueAtTime(0.0001, at);
  envelope.gain.exponentialRampToValueAtTime(1, at + 0.012);
  envelope.gain.exponentialRampToValueAtTime(0.0001, at + length);
  oscillator.connect(envelope).connect(output);
  oscillator.start(at);
  oscillator.stop(at + length + 0.02);
}

/** The longest a cue lasts, in seconds. */
export function cueLength(name) {
  return Math.max(...CUES[name].map(([, start, length]) => start + length));
}

/** The names of the cues. */
export const CUE_NAMES = Object.freeze(Object.keys(CUES));

function storedMuted() {
  try {
    return localStorage.getItem(STORAGE_KEY) === "off";
  } catch {
    return false;
  }
}

export function isMuted() {
  return mutedHere;
}

export function setMuted(muted) {
  try {
    if (muted) localStorage.setItem(STORAGE_KEY, "off");
    else localStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage may be refused (private mode): the switch still works for this page.
  }
  mutedHere = Boolean(muted);
  for (const button of document.querySelectorAll("button[data-sound-toggle]")) showState(button);
}


/**
 * Play a cue ("turn", "challenge", "won", "lost", "gameover"). Silent while muted or before the
 * first interaction; returns whether it played.
 */
export function play(name) {
  if (!(name in CUES)) throw new Error(`unknown cue: ${name}`);
  if (mutedHere) return false;
  if (!context) return false;
  const output = context.createGain();
  output.gain.value = VOLUME / Math.sqrt(CUES[name].length);
  output.connect(context.destination);
  for (const part of CUES[name]) note(output, part);
  played.push(name);
  return true;
}

/** Every cue actually played since the page loaded (for tests: nobody has to listen). */
export function playedCues() {
  return [...played];
}

function showState(button) {
  button.setAttribute("aria-pressed", String(!mutedHere));
  button.textContent = mutedHere ? "Sound: off" : "Sound: on";
}

/** A toggle button for the sound; every such button on the page shows the same state. */
export function muteButton() {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "sound-toggle";
  button.dataset.soundToggle = "";
  button.addEventListener("click", () => setMuted(!mutedHere));
  showState(button);
  return button;
}
