/*
 * The brain as an executable (`make brain`, `make brain-windows`): no Python,
 * so the evaluation's weights come from evaluation.h, and the process's
 * standard output is made safe for the protocol here. Python's brain
 * (service/brain/__init__.py) does the same two things before it calls
 * brain_run() through the extension.
 */
#include "brain.h"

#include "evaluation.h"
#ifdef _WIN32
#include <io.h>
#define dup _dup
#define dup2 _dup2
#else
#include <unistd.h>
#endif

int
main(void)
{
    big_search_init();
    if (big_set_evaluation(EVALUATION_PATTERN_WORTH, EVALUATION_KIND_BONUS, EVALUATION_TEMPO,
                           EVALUATION_CORRECTION) < 0 ||
        big_set_threat_values(EVALUATION_THREAT_VALUES) < 0 ||
        big_set_network(EVALUATION_NETWORK_CELLS, EVALUATION_NETWORK_MASK, EVALUATION_NETWORK_BIAS,
                        EVALUATION_NETWORK_OUT, EVALUATION_NETWORK_OUT_BIAS,
                        EVALUATION_NETWORK_LINEAR) < 0) {
        return 1;
    }
    /* A manager reads every line on standard output as an answer but MESSAGE
     * and DEBUG lines: the protocol keeps a duplicate of it, and descriptor 1
     * then points at standard error, so whatever else writes there (a
     * sanitizer's report, say) never reaches the manager as an answer. */
    fflush(stdout);
    int protocol = dup(1);
    if (protocol < 0) {
        protocol = 1; /* no spare descriptor: answers stay on 1 */
    }
    else {
        (void)dup2(2, 1);
    }
    return brain_run(0, protocol) < 0 ? 1 : 0;
}
