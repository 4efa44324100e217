"""Process isolation: the sandbox every build and evaluation child runs in, and the processes that start them."""
