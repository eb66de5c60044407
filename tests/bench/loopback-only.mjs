// Preloaded into the reference server: binds every listening socket to 127.0.0.1, because this
// machine's tests serve on loopback only and the reference server listens on all interfaces.
import net from 'node:net';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if ((typeof args[0] === 'number' || typeof args[0] === 'string') && typeof args[1] !== 'string')
    args.splice(1, 0, '127.0.0.1');
  return listen.apply(this, args);
};
