export * from "./approvals";
export * from "./effects";
export * from "./ledger";
export * from "./retry-policies";
export * from "./steps";
export * from "./tasks";
