//! loom's API surface, used as loom users use it.
