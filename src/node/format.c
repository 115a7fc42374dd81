/* format.c — value formats of avalanchego's JSON that the node services share. */
#include "node/internal.h"

#include <time.h>

#include "crypto/hash.h"

int64_t sl_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void sl_node_sleep_ms(sl_node *n, unsigned ms)
{
	while (ms && !(n->stop && *n->stop)) {
		unsigned step = ms < 50 ? ms : 50;
		struct timespec ts = { 0, (long)step * 1000000 };
		nanosleep(&ts, NULL);
		ms -= step;
	}
}

void sl_write_hex_checksum(sl_buf *b, const uint8_t *p, size_t n)
{
	uint8_t sum[4];
	sl_checksum4(p, n, sum);
	sl_buf_add(b, "0x", 2);
	sl_buf_add_hex(b, p, n);
	sl_buf_add_hex(b, sum, 4);
}

size_t sl_format_time(char out[64], int64_t ns)
{
	time_t sec = (time_t)(ns >= 0 ? ns / 1000000000 : -((-ns + 999999999) / 1000000000));
	long frac = (long)(ns - (int64_t)sec * 1000000000);
	struct tm tm;
	localtime_r(&sec, &tm);
	size_t w = strftime(out, 64, "%Y-%m-%dT%H:%M:%S", &tm);
	if (frac) {
		char f[16];
		snprintf(f, sizeof f, ".%09ld", frac);
		size_t k = strlen(f);
		while (f[k - 1] == '0')
			k--;
		memcpy(out + w, f, k);
		w += k;
	}
	long off = tm.tm_gmtoff;
	if (off == 0) {
		out[w++] = 'Z';
	} else {
		char sign = off < 0 ? '-' : '+';
		if (off < 0)
			off = -off;
		w += (size_t)snprintf(out + w, 64 - w, "%c%02ld:%02ld", sign, off / 3600, (off / 60) % 60);
	}
	out[w] = 0;
	return w;
}

/* Go's path.Clean, keeping a trailing slash as gorilla/mux's cleanPath does. */
size_t sl_path_clean(const char *p, char *out, size_t cap)
{
	size_t n = strlen(p), w = 0;
	if (n + 2 > cap)
		return 0;
	out[w++] = '/';
	size_t i = 0;
	while (i < n) {
		if (p[i] == '/') {
			i++;
		} else if (p[i] == '.' && (i + 1 == n || p[i + 1] == '/')) {
			i++;
		} else if (p[i] == '.' && p[i + 1] == '.' && (i + 2 == n || p[i + 2] == '/')) {
			i += 2;
			if (w > 1) {
				w--;
				while (w > 1 && out[w - 1] != '/')
					w--;
				if (w > 1)
					w--; /* drop the slash too, unless root */
			}
		} else {
			if (w > 1)
				out[w++] = '/';
			while (i < n && p[i] != '/')
				out[w++] = p[i++];
		}
	}
	if (n > 1 && p[n - 1] == '/' && w > 1)
		out[w++] = '/';
	out[w] = 0;
	return w;
}
