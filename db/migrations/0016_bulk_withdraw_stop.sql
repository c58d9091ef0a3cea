ALTER TABLE "bulk_action_members" DROP CONSTRAINT "bulk_action_members_outcome_check";--> statement-breakpoint
ALTER TABLE "bulk_actions" DROP CONSTRAINT "bulk_actions_status_check";--> statement-breakpoint
ALTER TABLE "bulk_actions" ADD COLUMN "ended_by" text;--> statement-breakpoint
ALTER TABLE "bulk_actions" ADD COLUMN "end_reason" text;--> statement-breakpoint
ALTER TABLE "bulk_action_members" ADD CONSTRAINT "bulk_action_members_outcome_check" CHECK (("bulk_action_members"."status" = 'finished') = ("bulk_action_members"."outcome" is not null) and ("bulk_action_members"."outcome" is null or "bulk_action_members"."outcome" in ('done', 'waiting', 'taken', 'refused', 'failed', 'skipped')));--> statement-breakpoint
ALTER TABLE "bulk_actions" ADD CONSTRAINT "bulk_actions_status_check" CHECK ("bulk_actions"."status" in ('awaiting_second', 'running', 'done', 'withdrawn', 'stopped'));