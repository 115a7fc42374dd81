-- index-rpc.lua — wrk script for bench/http.sh.
--
-- BENCH_METHOD=POST (default): index.getContainerByIndex JSON-RPC calls, the
-- index cycling over 0 .. BENCH_COUNT-1, each wrk thread starting at a
-- different offset so the threads do not walk in step.
-- BENCH_METHOD=GET: a plain GET of the same path (nginx's static file).
-- BENCH_RPC=range: index.getContainerRange of BENCH_RANGE (1024) containers instead.
local method = os.getenv("BENCH_METHOD") or "POST"
local count = tonumber(os.getenv("BENCH_COUNT") or "10000") or 10000
local rpc = os.getenv("BENCH_RPC") or "index"
local range = tonumber(os.getenv("BENCH_RANGE") or "1024") or 1024
local threads = 0
local next_index = 0

function setup(thread)
	thread:set("start", threads)
	threads = threads + 1
end

function init(args)
	next_index = (start or 0) * 7919 % count
	wrk.method = method
	if method == "POST" then
		wrk.headers["Content-Type"] = "application/json"
	end
end

function request()
	if method ~= "POST" then
		return wrk.format(nil, nil, nil, nil)
	end
	local body
	if rpc == "range" then
		local start = next_index % math.max(count - range + 1, 1)
		body = '{"jsonrpc":"2.0","id":1,"method":"index.getContainerRange","params":{"startIndex":"'
			.. start .. '","numToFetch":"' .. range .. '","encoding":"hex"}}'
	else
		body = '{"jsonrpc":"2.0","id":1,"method":"index.getContainerByIndex","params":{"index":"'
			.. next_index .. '","encoding":"hex"}}'
	end
	next_index = (next_index + 1) % count
	return wrk.format(nil, nil, nil, body)
end
