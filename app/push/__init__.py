"""Web Push: telling a player, tab closed or not, that something at their table needs them.

``notices`` is what may be said (public facts only), ``keys`` the server's VAPID identity,
``subscriptions`` each device's address and keys, ``sender`` the queue that delivers them.
"""
