"""亲友圈 (clubs): their rules and limits (:mod:`.club`) and their ledger, 战绩
(:mod:`.ledger`)."""
