// `agent-ledger/testing`: run agents against a throwaway database in a team's own tests.
export {};
