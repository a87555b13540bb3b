/**
 * Certificates made by the test itself with openssl: a CA, a server certificate it signed
 * for `localhost` and 127.0.0.1, and a second CA that signed nothing of the server's.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TestCertificates {
  dir: string;
  /** The CA that signed the server's certificate. */
  caFile: string;
  /** A CA that did not. */
  otherCaFile: string;
  certFile: string;
  keyFile: string;
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A fresh CA and server certificate in a temporary directory (EC P-256, valid one day). */
export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(path.join(tmpdir(), 'prepaid-certs-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=prepaid test CA'],
    dir,
  );
  openssl(
    [
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'other-ca.key',
      '-out',
      'other-ca.pem',
      '-days',
      '1',
      '-subj',
      '/CN=prepaid other CA',
    ],
    dir,
  );
  openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], dir);
  writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.pem',
      '-days',
      '1',
      '-extfile',
      'san.ext',
    ],
    dir,
  );
  return {
    dir,
    caFile: path.join(dir, 'ca.pem'),
    otherCaFile: path.join(dir, 'other-ca.pem'),
    certFile: path.join(dir, 'server.pem'),
    keyFile: path.join(dir, 'server.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
