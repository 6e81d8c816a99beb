mod backend;
