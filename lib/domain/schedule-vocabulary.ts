// The schedules vocabulary the database checks and the browser's form offers, apart from the
// cron reading in schedules.ts so a client bundle does not carry the cron library.
export const MISSED_POLICIES = ["skip", "run-once", "run-each"] as const;
export type MissedPolicy = (typeof MISSED_POLICIES)[number];

export const SCHEDULE_SOURCES = ["code", "admin"] as const;
export type ScheduleSource = (typeof SCHEDULE_SOURCES)[number];
