// vitest globalSetup: one throwaway server per run, shared by every test file.
import type { TestProject } from "vitest/node";
import { env } from "../../lib/env";
import { startTestCluster, type TestCluster } from "./cluster";

declare module "vitest" {
  // biome-ignore lint/style/useConsistentTypeDefinitions: module augmentation needs an interface
  export interface ProvidedContext {
    testCluster: TestCluster;
  }
}

export default async function setup(project: TestProject) {
  const { cluster, stop } = await startTestCluster(env().TEST_DATABASE_URL);
  project.provide("testCluster", cluster);
  return stop;
}
