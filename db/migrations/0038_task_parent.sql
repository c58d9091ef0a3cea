ALTER TABLE "steps" DROP CONSTRAINT "steps_kind_check";--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "parent_id" uuid;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_parent_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."tasks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tasks_parent_idx" ON "tasks" USING btree ("parent_id","created_at","id") WHERE "tasks"."parent_id" is not null;--> statement-breakpoint
ALTER TABLE "steps" ADD CONSTRAINT "steps_kind_check" CHECK ("steps"."kind" in ('model', 'tool', 'step', 'sleep', 'spawn'));