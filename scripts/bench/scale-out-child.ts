// The protocol of a scale-out child process (scale-out-worker.ts, scale-out-graphile.ts), one
// place: connected, it says "ready"; on "go" it starts; on "stop" it stops, then prints one JSON
// line: the attempts it ran and the CPU it used from "go" to stopped (closing its pools after).
import { createInterface } from "node:readline";

export type ScaleOutChild = {
  start: () => Promise<void>;
  stop: () => Promise<void>;
  close: () => Promise<void>;
  attempts: () => number;
};

export async function serveScaleOutChild(child: ScaleOutChild): Promise<void> {
  let cpu: NodeJS.CpuUsage | undefined;
  const lines = createInterface({ input: process.stdin });
  process.stdout.write("ready\n");
  for await (const line of lines) {
    if (line === "go") {
      cpu = process.cpuUsage();
      await child.start();
    } else if (line === "stop") {
      await child.stop();
      const used = process.cpuUsage(cpu);
      await child.close();
      process.stdout.write(
        `${JSON.stringify({ attempts: child.attempts(), cpuMs: (used.user + used.system) / 1000 })}\n`,
      );
      lines.close();
    }
  }
}
