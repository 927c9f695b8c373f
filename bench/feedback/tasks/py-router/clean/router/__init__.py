"""Match request paths against route patterns such as `/users/{id:int}`."""
