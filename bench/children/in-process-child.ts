// The in-process meter's own process (see bench/lib/meter-process.ts): it loads only the bodies and the
// classifier, as the service's request path sees them, and answers the bench's IPC messages.
import { adversarialBodies, realisticBodies, worstCaseBody } from '../lib/bodies.ts';
import { InProcessMeter } from '../lib/in-process.ts';
import type { MeterReply, MeterRequest } from '../lib/meter-process.ts';

const [repoRoot, quick] = [process.argv[2] as string, process.argv[3] === 'quick'];
const meter = await InProcessMeter.create(repoRoot, realisticBodies(repoRoot), worstCaseBody(repoRoot), adversarialBodies(), quick);
const send = (m: MeterReply) => process.send?.(m);
process.on('message', (m: MeterRequest) => {
  if (m.cmd === 'chunk') send({ cmd: 'chunk', medians: meter.chunk() });
  else send({ cmd: 'result', figures: meter.result() });
});
send({ cmd: 'ready' });
