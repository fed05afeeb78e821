/**
 * How `serve` shows a first start's progress: on a terminal one line rewritten in place, so the
 * steps do not scroll the banner away; piped into a file or a supervisor's log, plain lines, since
 * carriage returns and escape codes would only garble it.
 */

/** Where the lines go: a stream that may be a terminal (`process.stderr`). */
export interface ProgressOutput {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export interface ProgressLine {
  /** Shows `line` as the current step. */
  report(line: string): void;
  /** Leaves the last step on screen and moves past it; nothing when nothing was shown. */
  end(): void;
}

/** Return to the line's start and erase it (ANSI "erase in line", whole line). */
const REWRITE = '\r\x1b[2K';

export function progressLine(output: ProgressOutput): ProgressLine {
  if (output.isTTY !== true) {
    return { report: (line) => output.write(`${line}\n`), end: () => {} };
  }
  let open = false;
  return {
    report(line) {
      output.write(`${REWRITE}${line}`);
      open = true;
    },
    end() {
      if (open) output.write('\n');
      open = false;
    },
  };
}
