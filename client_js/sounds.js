// The game page's sounds, made with WebAudio (no sound files): a move, a capture or score,
// low time, the end of the game.  A mute switch is remembered in localStorage.  Browsers
// start audio only after the player has pressed something, so the context starts on the
// first key or pointer press.  Imports nothing.

const MUTE_KEY = "browne-games.muted";

/** Notes of each sound: [frequency Hz, start s, length s, type, volume]. */
const SOUNDS = Object.freeze({
  move: [[440, 0, 0.07, "triangle", 0.22], [220, 0, 0.09, "sine", 0.18]],
  capture: [[660, 0, 0.08, "triangle", 0.2], [880, 0.07, 0.1, "triangle", 0.18]],
  low: [[988, 0, 0.09, "square", 0.07], [988, 0.16, 0.09, "square", 0.07]],
  end: [[523, 0, 0.18, "sine", 0.2], [659, 0.12, 0.18, "sine", 0.18], [784, 0.24, 0.3, "sine", 0.18]],
  turn: [[587, 0, 0.08, "sine", 0.12]],
});

class Sounds {
  constructor() {
    this.context = null;
    this.muted = localStorage.getItem(MUTE_KEY) === "1";
    const start = () => {
      if (this.context === null && typeof AudioContext !== "undefined") this.context = new AudioContext();
      this.context?.resume?.();
    };
    for (const type of ["pointerdown", "keydown"]) document.addEventListener(type, start, { once: true, capture: true });
  }

  setMuted(muted) {
    this.muted = muted;
    localStorage.setItem(MUTE_KEY, muted ? "1" : "0");
  }

  /** Plays sound `name` (one of SOUNDS) unless muted or audio has not started. */
  play(name) {
    const notes = SOUNDS[name];
    if (notes === undefined) throw new Error(`no sound ${name}`);
    const context = this.context;
    if (this.muted || context === null || context.state !== "running") return;
    const now = context.currentTime;
    for (const [frequency, start, length, type, volume] of notes) {
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.type = type;
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(0, now + start);
      gain.gain.linearRampToValueAtTime(volume, now + start + 0.008);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(now + start);
      oscillator.stop(now + start + length + 0.02);
    }
  }
}

export { SOUNDS, Sounds };
