-- api-paths.lua — wrk script for bench/api.sh: GET each path of the file BENCH_PATHS (one a
-- line) in turn, round and round, each wrk thread starting at a different line so the threads
-- do not walk in step. bench/api.sh gives snowline the API's URLs (page tokens included) and
-- nginx the files holding the same bodies, in the same order.
local file = os.getenv("BENCH_PATHS")
local paths = {}
local threads = 0
local at = 0

for line in io.lines(file) do
	if line ~= "" then
		paths[#paths + 1] = line
	end
end
assert(#paths > 0, "api-paths.lua: no paths in " .. tostring(file))

function setup(thread)
	thread:set("start", threads)
	threads = threads + 1
end

function init(args)
	at = ((start or 0) * 7) % #paths
end

function request()
	at = at % #paths + 1
	return wrk.format("GET", paths[at])
end
