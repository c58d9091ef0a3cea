CREATE TABLE "tool_rate_limits" (
	"tool" text PRIMARY KEY NOT NULL,
	"limit" integer NOT NULL,
	"period_ms" integer NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tool_rate_limits_limit_check" CHECK ("tool_rate_limits"."limit" between 1 and 10000),
	CONSTRAINT "tool_rate_limits_period_check" CHECK ("tool_rate_limits"."period_ms" between 1 and 86400000),
	CONSTRAINT "tool_rate_limits_tool_check" CHECK (length("tool_rate_limits"."tool") between 1 and 200)
);
