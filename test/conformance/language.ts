/**
 * What the conformance runner (./run.ts) needs of a language: its reference server and its
 * conformance client. Kept apart from run.ts so that language targets (test/python/…) import it
 * without importing the runner.
 */
import { type ChildProcess, spawn } from 'node:child_process';

/**
 * A language whose reference server and conformance client the suites run against. TypeScript's
 * is {@link TYPESCRIPT}; others are defined beside their language's tests (test/python/).
 */
export interface LanguageTarget {
  /** `typescript`, `python`, `go` …: names the expected-failures file and the report lines. */
  name: string;
  /**
   * Starts the reference server a suite's server scenarios run against: 2025-11-25 (with the
   * older handshake versions it negotiates) when `revision` is undefined, else the dual-era
   * endpoint serving `revision` statelessly and 2025-11-25 to `initialize`.
   */
  startServer(revision: string | undefined): Promise<{ url: string; stop(): Promise<void> }>;
  /** The conformance client's command (the suite appends ` --rev <revision>` for stateless suites, then the URL). */
  clientCommand(work: string): Promise<string>;
}

/**
 * A reference server run as a command that prints `listening on <url>` (stdout or stderr) once
 * it accepts connections; `stop()` ends it (SIGTERM, then SIGKILL after 5 s). The URL's host is
 * given as `localhost` (the suites' DNS-rebinding scenario sends the host it was given).
 */
export function commandServer(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  timeoutMs = 60_000,
): Promise<{ url: string; stop(): Promise<void>; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let seen = '';
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(kill);
          done();
        });
        child.kill('SIGTERM');
      });
    const timer = setTimeout(() => {
      void stop();
      reject(
        new Error(
          `${command} ${args.join(' ')} printed no "listening on <url>" within ${timeoutMs} ms:\n${seen.slice(-2000)}`,
        ),
      );
    }, timeoutMs);
    const look = (d: Buffer) => {
      seen += d.toString();
      const m = /listening on (https?:\/\/\S+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        child.stdout.off('data', look);
        child.stderr.off('data', look);
        // keep draining the pipes so the server never blocks on a full one
        child.stdout.resume();
        child.stderr.resume();
        resolve({ url: m[1].replace('//127.0.0.1:', '//localhost:'), stop, child });
      }
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${code}) before listening:\n${seen.slice(-2000)}`));
    });
  });
}
