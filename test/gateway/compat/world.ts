/**
 * What every dialect's test runs against: a real core, two gateways in front of it (a short
 * compat wait, for purchases that outlast it, with the root form on a port of its own; a long one,
 * for purchases that settle within it), each behind a TLS terminator as real clients reach them,
 * and the catalogue's MTN 500 MB plan and first DStv package.
 */
import { startCore, type TestCore } from '../../helpers/core.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { startTlsProxy, type TlsProxy } from '../../helpers/tls-proxy.js';

export interface CompatWorld {
  core: TestCore;
  quick: TestGateway;
  patient: TestGateway;
  quickTls: TlsProxy;
  patientTls: TlsProxy;
  mtnPlanId: number;
  packageCode: string;
  close(): Promise<void>;
}

export async function startCompatWorld(
  options: { core?: Parameters<typeof startCore>[0]; rootDialect?: 'msorg' | 'adex' | 'vtpass' } = {},
): Promise<CompatWorld> {
  const core = await startCore(options.core);
  const quick = await startTestGateway(core, {
    compatWaitMs: 300,
    compatPort: 0,
    ...(options.rootDialect === undefined ? {} : { compatRootDialect: options.rootDialect }),
  });
  const patient = await startTestGateway(core, { compatWaitMs: 20_000 });
  const quickTls = await startTlsProxy(quick.port);
  const patientTls = await startTlsProxy(patient.port);
  const { plans } = await core.admin.listCatalogPlans({ network: 'mtn' });
  const mtnPlanId = Number(plans.find((p) => p.active && /500\s*MB/i.test(p.label))?.planId ?? plans[0]!.planId);
  const { packages } = await core.admin.listCablePackages({ provider: 'dstv' });
  return {
    core,
    quick,
    patient,
    quickTls,
    patientTls,
    mtnPlanId,
    packageCode: packages[0]!.packageCode,
    async close() {
      await quickTls.close();
      await patientTls.close();
      await quick.close();
      await patient.close();
      await core.close();
    },
  };
}
