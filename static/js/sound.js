// Short cues synthesized with the Web Audio API: no sound files. Browsers let a page make sound
// only after the person has interacted with it, so the AudioContext is made on the first
// pointer or key press; until then play() stays silent. A mute switch is remembered.

import { isMine } from "./moves.js";

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
    if (!window.AudioContext) return;
    try {
      context = new AudioContext();
    } catch {
      return; // No audio output here: the game simply stays silent.
    }
  }
  if (context.state === "suspended") context.resume().catch(() => {});
}

// A touch's pointerdown does not count as an interaction for browsers; its pointerup and
// touchend do. Each of these retries until the context runs.
for (const type of ["pointerdown", "pointerup", "touchend", "keydown"]) {
  window.addEventListener(type, unlock, { capture: true, passive: true });
}
window.addEventListener("storage", (event) => {
  if (event.key === STORAGE_KEY) setMuted(storedMuted());
});

/** Whether the context can sound now, or will as soon as its resume() settles. */
function canSound() {
  if (!context || context.state === "closed") return false;
  if (context.state === "running") return true;
  if (!navigator.userActivation?.hasBeenActive) return false;
  context.resume().catch(() => {});
  return true;
}

function note(audio, output, [frequency, start, length, wave]) {
  const at = audio.currentTime + start;
  const oscillator = audio.createOscillator();
  const envelope = audio.createGain();
  oscillator.type = wave;
  oscillator.frequency.setValueAtTime(frequency, at);
  envelope.gain.setValueAtTime(0.0001, at);
  envelope.gain.exponentialRampToValueAtTime(1, at + 0.012);
  envelope.gain.exponentialRampToValueAtTime(0.0001, at + length);
  oscillator.connect(envelope).connect(output);
  oscillator.start(at);
  oscillator.stop(at + length + 0.02);
}

function schedule(audio, name) {
  const output = audio.createGain();
  output.gain.value = VOLUME / Math.sqrt(CUES[name].length);
  output.connect(audio.destination);
  for (const part of CUES[name]) note(audio, output, part);
}

/**
 * A cue rendered offline, without playing it: its samples over one second, so a test can
 * measure how loud and how long it is without anybody listening.
 */
export async function renderCue(name) {
  const sampleRate = 22050;
  const audio = new OfflineAudioContext(1, sampleRate, sampleRate);
  schedule(audio, name);
  const buffer = await audio.startRendering();
  return { sampleRate, samples: buffer.getChannelData(0) };
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
  if (!canSound()) return false;
  schedule(context, name);
  played.push(name);
  return true;
}

/** The cues a new state calls for, from the state before and the log entries it added. */
export function cuesFor(before, view, entries) {
  const cues = [];
  const me = view.seat;
  if (me === null || me === undefined) return cues;
  for (const entry of entries) {
    if (entry.event === "challenge" && entry.target === me) cues.push("challenge");
    if (entry.event === "challenge_won" && (entry.challenger === me || entry.defender === me)) cues.push(entry.seat === me ? "won" : "lost");
  }
  // The turn cue sounds when the turn passes to this seat, not again after a challenge in it.
  const turnNow = isMine(view) && !view.challenge && !view.pending && view.active === me;
  if (turnNow && (before.active !== me || before.over)) cues.push("turn");
  if (view.over && !before.over) cues.push("gameover");
  return cues;
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
