// `npm run dev`: the service from the sources (through tsx), its JSON log lines made
// readable by pino-pretty. A shell pipe (`node bin/start.ts | pino-pretty`) did two things
// wrong: `npm run dev -- <args>` appended the arguments to pino-pretty instead of the
// service, and the pipeline's exit status was pino-pretty's, so a service that failed to
// start still "succeeded". Here the arguments go to the service, its stdout goes through
// the formatter in this process (lines that are not JSON, such as --help, pass unchanged),
// its stderr is untouched, and this process exits with the service's status.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pretty from 'pino-pretty';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const service = spawn(
  process.execPath,
  ['--import', 'tsx', path.join(root, 'bin', 'start.ts'), ...process.argv.slice(2)],
  {
    cwd: process.cwd(),
    stdio: ['inherit', 'pipe', 'inherit'],
  },
);
const formatter = pretty({
  messageFormat: '{service} {event}',
  ignore: 'pid,hostname,service,event',
  singleLine: true,
  translateTime: 'SYS:HH:MM:ss.l',
  destination: 1,
});
service.stdout.pipe(formatter);

// A terminal's Ctrl-C reaches the whole process group, the service included; a signal sent
// to this process alone (kill <pid>) is passed on, so the service stops gracefully either way.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => service.kill(signal));

service.on('error', (error) => {
  console.error(`npm run dev: cannot start the service: ${error.message}`);
  process.exit(1);
});
service.on('close', (code, signal) => {
  // A service ended by a signal exits as a shell reports it: 128 plus the signal's number.
  const status = code ?? 128 + (signal === null ? 0 : (constants.signals[signal] ?? 0));
  formatter.end(() => process.exit(status));
});
