/*
 * version.h — what this binary is: its version and the git commit it was
 * built from (`snowline --version`, info.getNodeVersion's gitCommit).
 */
#ifndef SL_VERSION_H
#define SL_VERSION_H

#define SL_VERSION "0.2.0"

/* The commit's full hash, with "-dirty" when the tree had uncommitted changes; "" when unknown. */
const char *sl_git_commit(void);

#endif
