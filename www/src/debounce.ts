/** Run one function after a delay; a newer call replaces one still waiting
 *  (a delay of 0 or less runs it at once). */
export class Debounce {
  private timer: ReturnType<typeof setTimeout> | undefined;

  run(delay: number, f: () => void) {
    this.cancel();
    if (delay <= 0) f();
    else this.timer = setTimeout(f, delay);
  }

  cancel() {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
