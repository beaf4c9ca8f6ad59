// Runs component tests (infra/, packages/) before system tests (services/, load-tests/): see
// services-per-suite.ts. Within each group, files keep a stable alphabetical order.
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { isSystemTest } from "./test-kind.ts";

export class ComponentsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const key = (f: TestSpecification) => `${isSystemTest(f.moduleId) ? 1 : 0}:${f.moduleId}`;
    return [...files].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }
}
