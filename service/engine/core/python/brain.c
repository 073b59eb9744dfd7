/*
 * The Gomocup brain (service/brain/native/) run from Python over two file
 * descriptors, with the GIL released: `python -m service.brain`'s engine.
 */
#include "glue.h"

#include <stdatomic.h>

#include "../../../brain/native/run.h"

/* One brain session at a time: the brain's output channel is the process's. */
static atomic_int brain_running;

PyObject *
core_run_brain(PyObject *Py_UNUSED(module), PyObject *args)
{
    int in_fd, out_fd;
    if (!PyArg_ParseTuple(args, "ii", &in_fd, &out_fd)) {
        return NULL;
    }
    if (in_fd < 0 || out_fd < 0) {
        PyErr_SetString(PyExc_ValueError, "run_brain takes two open file descriptors");
        return NULL;
    }
    int idle = 0;
    if (!atomic_compare_exchange_strong(&brain_running, &idle, 1)) {
        PyErr_SetString(PyExc_RuntimeError, "a brain session is running in this process already");
        return NULL;
    }
    int result;
    Py_BEGIN_ALLOW_THREADS
    result = brain_run(in_fd, out_fd);
    Py_END_ALLOW_THREADS
    atomic_store(&brain_running, 0);
    if (result < 0) {
        PyErr_SetString(PyExc_OSError, "the brain could not start: no memory, descriptor or thread");
        return NULL;
    }
    Py_RETURN_NONE;
}
