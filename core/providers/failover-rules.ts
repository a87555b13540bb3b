/** The failover rule of each adapter kind (see failover.ts); one table, so no kind is forgotten. */
import { clubkonnectNotDelivered } from './clubkonnect/failover.js';
import type { FailoverRule } from './failover.js';
import { portedNumberNotDelivered } from './ported-number/failover.js';
import { sandboxNotDelivered } from './sandbox/failover.js';
import type { UpstreamKind } from './upstreams.js';
import { vtpassNotDelivered } from './vtpass/failover.js';

export const FAILOVER_RULES: Readonly<Record<UpstreamKind, FailoverRule>> = {
  vtpass: vtpassNotDelivered,
  clubkonnect: clubkonnectNotDelivered,
  'ported-number': portedNumberNotDelivered,
  sandbox: sandboxNotDelivered,
};
