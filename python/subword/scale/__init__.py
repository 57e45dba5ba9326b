"""Scale-out: word counts that add up (`counts`, the count-file format in `countfile`),
token shards on disk (`shards`), and the Ray paths (`ray`, exposed as `subword.ray`)."""
