# lib.sh — sourced by the benches: processes they start and stop (bd_pids, and the PostgreSQL
# servers of bd_pgdirs), free ports, waits with deadlines, wrk's latencies in ms, and nginx
# serving a directory as bench/http.sh and bench/api.sh run it. The caller sets `name` (for
# messages) and `tmp` (its scratch directory), and calls bd_cleanup from its EXIT trap.

bd_pids=()
bd_pgdirs=()

bd_cleanup() {
	local p
	for p in "${bd_pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${bd_pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	bd_pids=()
	for p in "${bd_pgdirs[@]}"; do scripts/pg-test-server.sh stop "$p"; done
	bd_pgdirs=()
}

# bd_stop PID: stop one process this file started (TERM, then KILL after 10 s).
bd_stop() {
	local p=$1 i keep=()
	kill "$p" 2>/dev/null
	for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	for i in "${bd_pids[@]}"; do [ "$i" = "$p" ] || keep+=("$i"); done
	bd_pids=("${keep[@]}")
}

bd_free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# bd_wait_for SECONDS PID CMD...: poll CMD until it succeeds; fail if PID dies or time runs out.
bd_wait_for() {
	local deadline=$((SECONDS + $1)) pid=$2
	shift 2
	while :; do
		"$@" >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		[ $SECONDS -lt $deadline ] || return 1
		sleep 0.2
	done
}

# bd_to_ms "1.23ms" -> 1.230 (wrk prints us, ms, s, m)
bd_to_ms() {
	awk -v v="$1" 'BEGIN {
		n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
		if (u == "us") n /= 1000; else if (u == "s") n *= 1000; else if (u == "m") n *= 60000
		printf "%.3f", n }'
}

# bd_nginx_start ROOT: nginx (2 workers, keep-alive, access log off, sendfile) serving ROOT's files
# as application/json, as bench/http.sh runs it; sets bd_nginx_port.
bd_nginx_start() {
	local root=$1 conf=$tmp/nginx.conf temp_paths m
	mkdir -p "$tmp/nginx"
	bd_nginx_port=$(bd_free_port)
	temp_paths="client_body_temp_path $tmp/nginx/body;"
	for m in proxy fastcgi uwsgi scgi; do
		nginx -V 2>&1 | grep -q -- "--without-http_${m}_module" ||
			temp_paths="$temp_paths ${m}_temp_path $tmp/nginx/$m;"
	done
	cat >"$conf" <<NGINX
worker_processes 2;
daemon off;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log warn;
events { worker_connections 4096; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	tcp_nodelay on;
	keepalive_timeout 65;
	keepalive_requests 100000000;
	$temp_paths
	default_type application/json;
	server {
		listen 127.0.0.1:$bd_nginx_port;
		root $root;
		location / { }
	}
}
NGINX
	# As root, nginx workers run as nobody: the files must be world-readable.
	chmod -R a+rX "$tmp"
	nginx -p "$tmp/nginx" -e "$tmp/nginx/error.log" -c "$conf" >"$tmp/nginx.out" 2>&1 &
	local pid=$!
	bd_pids+=("$pid")
	bd_wait_for 20 "$pid" curl -sf --max-time 2 -o /dev/null "http://127.0.0.1:$bd_nginx_port/" ||
		bd_wait_for 5 "$pid" curl -s --max-time 2 -o /dev/null "http://127.0.0.1:$bd_nginx_port/" || {
		echo "$name bench: nginx did not come up:" >&2
		cat "$tmp/nginx.out" "$tmp/nginx/error.log" 2>/dev/null | tail -5 >&2
		return 1
	}
}
