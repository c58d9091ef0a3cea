import { expect, it } from "vitest";
import { startDemoReceivers } from "./receivers";
import { postRefund, refundForm } from "./test-helpers";

it("starts both receivers with their faults and stops them together", async () => {
  const receivers = await startDemoReceivers({
    faults: { payments: { status502Rate: 1 }, smtp: { tempFailRate: 1 } },
  });
  expect((await postRefund(receivers.paymentsUrl, refundForm("r-1"))).status).toBe(502);
  const faults = await (await fetch(`${receivers.smtpControlUrl}/__control/faults`)).json();
  expect(faults).toEqual({ faults: { tempFailRate: 1 } });
  await receivers.stop();
  await expect(fetch(`${receivers.paymentsUrl}/v1/refunds`)).rejects.toThrow();
  await expect(fetch(`${receivers.smtpControlUrl}/__control/messages`)).rejects.toThrow();
});

it("gives back the payments port when the SMTP sink cannot start", async () => {
  const first = await startDemoReceivers();
  const smtpPort = Number(new URL(first.smtpUrl).port);
  await expect(startDemoReceivers({ paymentsPort: 0, smtpPort })).rejects.toThrow(/EADDRINUSE/);
  await first.stop();
});
