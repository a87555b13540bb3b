/**
 * Runs the real core as a child process (`node --import tsx core/main.ts`), as an operator
 * would, and reads the address it announces on stdout. For tests that must kill it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export interface CoreProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port> */
  url: string;
  /** Resolves with the exit code or signal once the process is gone. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Every line it wrote to stdout so far (its JSON log). */
  stdout: string[];
}

/** How long a start may take before the test gives up on it. */
const START_TIMEOUT_MS = 20_000;

export async function spawnCore(env: Record<string, string>): Promise<CoreProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'core/main.ts'], {
    env: { ...process.env, CORE_PORT: '0', CORE_METRICS_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const lines = createInterface({ input: child.stdout! });
  const stdout: string[] = [];
  lines.on('line', (line) => stdout.push(line));
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`core did not start in time: ${stderr}`)), START_TIMEOUT_MS);
    lines.on('line', (line) => {
      try {
        const event = JSON.parse(line) as { event?: string; address?: string };
        if (event.event === 'core.listening' && event.address) {
          clearTimeout(timer);
          resolve(event.address);
        }
      } catch {
        // Not a JSON log line; ignore.
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`core exited before listening (code ${code}, signal ${signal}): ${stderr}`));
    });
  });
  // Keep draining stdout so the child never blocks on a full pipe.
  lines.on('line', () => {});
  return { child, url: `http://${address}`, exited, stdout };
}
