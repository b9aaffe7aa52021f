/**
 * The server process `mcpgen serve --lang python|go` runs (the reference server of that
 * language), tied to this process: its stdin, stdout and stderr are this process's; SIGINT and
 * SIGTERM to this process are passed on, and a child still running {@link CHILD_GRACE_MS} after
 * that is killed (SIGKILL), so a server that does not end (a stream or a call that never closes)
 * cannot keep `mcpgen serve` alive; when this process exits the child is killed with it. The
 * child gets `MCPGEN_PARENT_PID` (this process's id): the reference servers watch that parent and
 * end when it is gone (killed with SIGKILL, which no handler here sees), so none is left behind.
 */
import { spawn } from 'node:child_process';

/** How long (ms) the child has to end after a SIGINT/SIGTERM passed on before it is killed. */
export const CHILD_GRACE_MS = 5_000;

/** Runs `command argv` (environment `env`, plus `MCPGEN_PARENT_PID`); resolves with its exit code (1 when a signal ended it). */
export function runServerChild(
  command: string,
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const child = spawn(command, argv, { stdio: 'inherit', env: { ...env, MCPGEN_PARENT_PID: String(process.pid) } });
  let escalation: NodeJS.Timeout | undefined;
  const forward = (signal: NodeJS.Signals) => () => {
    child.kill(signal);
    escalation ??= setTimeout(() => child.kill('SIGKILL'), CHILD_GRACE_MS);
  };
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  const onExit = () => child.kill('SIGKILL');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  process.on('exit', onExit);
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(escalation);
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      process.off('exit', onExit);
    };
    child.on('error', (e) => {
      done();
      reject(e);
    });
    child.on('exit', (code, signal) => {
      done();
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}
