#include "util/version.h"

/* build/gen/version_gen.h is written by the Makefile from `git rev-parse HEAD`. */
#include "version_gen.h"

const char *sl_git_commit(void) { return SL_GIT_COMMIT; }
