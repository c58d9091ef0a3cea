CREATE TABLE "rate_limits" (
	"bucket" text PRIMARY KEY NOT NULL,
	"stamps" timestamp with time zone[] DEFAULT '{}'::timestamptz[] NOT NULL
);
