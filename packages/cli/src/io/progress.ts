/**
 * A progress line on stderr for long commands (`crawl`, `import`): on a terminal, one line redrawn in place at most
 * ten times a second; elsewhere (logs, pipes), plain lines, as often as the command decides, so that a log shows
 * progress without a line per step.
 */
export interface ProgressLine {
  /** True on a terminal: `draw` is shown; otherwise `log` is. */
  readonly tty: boolean;
  /** Redraws the line (terminal only), skipped when the last draw was under 100 ms ago unless `final`. */
  draw(text: string, final?: boolean): void;
  /** Writes a line (not a terminal only). */
  log(text: string): void;
  /** Writes a line on a terminal too, above the drawn line, which the next `draw` shows again: an event of note. */
  note(text: string): void;
  /** Ends a drawn line, so that what follows starts on a line of its own. */
  end(): void;
}

export function progressLine(stream: NodeJS.WriteStream = process.stderr): ProgressLine {
  const tty = stream.isTTY === true;
  let lastDraw = Number.NEGATIVE_INFINITY;
  let drawn = false;
  return {
    tty,
    draw(text, final = false) {
      if (!tty) return;
      const now = performance.now();
      if (now - lastDraw < 100 && !final) return;
      lastDraw = now;
      stream.write(`\r\x1b[2K${text}`);
      drawn = true;
    },
    log(text) {
      if (!tty) stream.write(`${text}\n`);
    },
    note(text) {
      stream.write(drawn ? `\r\x1b[2K${text}\n` : `${text}\n`);
      drawn = false;
      // The line the note replaced is drawn again at the next draw, however soon.
      lastDraw = Number.NEGATIVE_INFINITY;
    },
    end() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}
