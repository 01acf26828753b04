"""Several ``baohuang serve`` nodes as one service: leases on tables in Redis
(:mod:`.lease`), and the services a cluster runs on — PostgreSQL, redis-server,
HAProxy — started on this machine for trying it out (:mod:`.services`,
``baohuang cluster``).  See docs/cluster.md."""
